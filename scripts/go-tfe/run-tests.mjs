#!/usr/bin/env node
/**
 * Runs go-tfe's compiled test binary over the given top-level tests and writes the events of
 * `go tool test2json` to stdout, one JSON object a line (plain Node, no dependencies).
 *
 * Each top-level test runs in its own process, a few processes at a time. Two reasons: a
 * panicking test ends its whole Go process (go-tfe panics on some answers it cannot decode),
 * which would silently drop every test after it; and a handful of tests spend most of their
 * time waiting (go-tfe's log reader tests sleep by design, tests waiting for a run state
 * PolicyHub never reaches poll for 46 or 92 s), which in one sequence would add minutes. The
 * tests create their own organizations, so they do not see each other. A test whose process
 * ends without reporting it gets a synthetic `fail` event saying so.
 *
 * Usage: node run-tests.mjs <test binary> <file with one test name a line> [--jobs N] [--last NAME]...
 *   --last NAME   run NAME alone after all the others (a test that changes the calling account)
 * Environment: TFE_ADDRESS, TFE_TOKEN (for the tests).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const [binary, listFile] = args;
if (!binary || !listFile) {
  console.error('usage: run-tests.mjs <test binary> <test list> [--jobs N] [--last NAME]...');
  process.exit(2);
}
let jobs = 4;
const last = new Set();
for (let i = 2; i < args.length; i += 2) {
  if (args[i] === '--jobs') jobs = Math.max(1, Number(args[i + 1]));
  else if (args[i] === '--last') last.add(args[i + 1]);
  else {
    console.error(`run-tests: unknown option ${args[i]}`);
    process.exit(2);
  }
}
const tests = readFileSync(listFile, 'utf8').split('\n').filter(Boolean);

const emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

/** One process for one top-level test; resolves once it has exited. */
function runOne(test) {
  const child = spawn(
    'go',
    [
      'tool',
      'test2json',
      '-p',
      'go-tfe',
      binary,
      '-test.v',
      '-test.run',
      `^${test}$`,
      '-test.timeout',
      '10m',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let reported = false;
  createInterface({ input: child.stdout }).on('line', (line) => {
    process.stdout.write(`${line}\n`);
    try {
      const event = JSON.parse(line);
      if (event.Test === test && ['pass', 'fail', 'skip'].includes(event.Action)) reported = true;
    } catch {
      // not an event line; passed through as is
    }
  });
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      if (!reported) {
        emit({
          Action: 'output',
          Package: 'go-tfe',
          Test: test,
          Output: `run-tests: the test process ended (${signal ?? `exit ${code}`}) without reporting this test\n`,
        });
        emit({ Action: 'fail', Package: 'go-tfe', Test: test });
      }
      resolve();
    }),
  );
}

const queue = tests.filter((t) => !last.has(t));
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let test = queue.shift(); test; test = queue.shift()) await runOne(test);
  }),
);
for (const test of tests.filter((t) => last.has(t))) await runOne(test);
