#!/usr/bin/env node
// `npm test`: lint, then every package's typecheck and tests, fast packages first and the end-to-end
// suite last. Every step runs even when an earlier one failed, so one failure never hides another;
// the exit code is non-zero if anything failed.
import { spawnSync } from 'node:child_process';

const steps = [
  ['lint (biome)', 'npx', ['biome', 'check', '.']],
  [
    'packages: typecheck and tests',
    'npx',
    ['turbo', 'run', 'typecheck', 'test', '--concurrency=1', '--continue=always', '--filter=!@policyhub/e2e'],
  ],
  [
    'end-to-end: typecheck and tests',
    'npx',
    ['turbo', 'run', 'typecheck', 'test', '--concurrency=1', '--continue=always', '--filter=@policyhub/e2e'],
  ],
];

const failed = [];
for (const [name, command, args] of steps) {
  console.log(`\n== ${name}`);
  const { status, signal } = spawnSync(command, args, { stdio: 'inherit', env: process.env });
  if (status !== 0) failed.push(`${name} (${signal ?? `exit ${status}`})`);
}
console.log(
  failed.length === 0 ? '\nnpm test: every step passed' : `\nnpm test: FAILED: ${failed.join('; ')}`,
);
process.exit(failed.length === 0 ? 0 : 1);
