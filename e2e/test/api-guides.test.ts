import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GuideBlock, shellBlocks, statusesByBlock } from './support/guide-blocks.js';

/*
 * The API guides, followed as a reader would: every ```sh block of docs/api/*.md, in the order
 * below, in ONE bash session (variables and files carry over from block to block and from guide
 * to guide) against a fresh embedded system. The only edits are the reader's own: the base URL,
 * the site-admin token and the runs gRPC address `npm start` prints. Every HTTP call a block
 * makes must answer 2xx, or exactly the statuses its fence names (```sh status=409,404). The
 * shell runs in a scratch directory holding links to the repository's files and to the system's
 * DATA_DIR as `.data`, which is what "from the repository root" means in the guides.
 */

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const guidesDir = join(repoRoot, 'docs', 'api');
/** The reading order: each guide may use what the ones before it created. */
const GUIDES = [
  'users-and-teams.md',
  'policy-sets.md',
  'policy-set-versions.md',
  'runs.md',
  'admin-organizations.md',
  'audit-trail.md',
];
/** What a reader of the guides has: the repository (npm run evaluator, the e2e test engine). */
const REPOSITORY_LINKS = ['package.json', 'node_modules', 'packages', 'services', 'e2e', 'proto'];

let db: TestDatabase;
let system: RunningSystem;
let dataDir: string;
let workDir: string;

beforeAll(async () => {
  db = await createTestDatabase('ph_e2e_guides');
  dataDir = mkdtempSync(join(tmpdir(), 'policyhub-guides-data-'));
  system = await startSystem({
    port: 0,
    validateResponses: true,
    dataDir,
    databaseUrl: db.url,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  workDir = mkdtempSync(join(tmpdir(), 'policyhub-guides-'));
  for (const entry of REPOSITORY_LINKS) symlinkSync(join(repoRoot, entry), join(workDir, entry));
  symlinkSync(dataDir, join(workDir, '.data'));
});

afterAll(async () => {
  await system?.close();
  await db?.drop();
  for (const dir of [workDir, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The reader's edits: where their system listens and its site-admin token. */
function personalise(code: string): string {
  return code
    .replaceAll('http://127.0.0.1:8080', system.baseUrl)
    .replaceAll('127.0.0.1:32781', system.services.runs!.address)
    .replace(/^TOKEN=.*$/gm, `TOKEN=${system.siteAdminToken}`);
}

/**
 * One bash script: a curl wrapper that records each call's status for the current block (the
 * wrapper's -w comes last, so it wins over a block's own), then every block in turn.
 */
function script(blocks: GuideBlock[], statusLog: string): string {
  const parts = [
    'set -euo pipefail',
    `PH_STATUS_LOG=${JSON.stringify(statusLog)}`,
    `curl() { command curl "$@" -w "%{stderr}::status $PH_BLOCK %{http_code}\\n" 2>>"$PH_STATUS_LOG"; }`,
  ];
  blocks.forEach((block, i) => {
    parts.push(`PH_BLOCK=${i}`, `echo "::block ${i}" >&2`, personalise(block.code));
  });
  parts.push('echo "::done" >&2');
  return `${parts.join('\n')}\n`;
}

function runBash(path: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Its own process group: whatever a block leaves running (an evaluator) is stopped with it.
    const child = spawn('bash', [path], { cwd: workDir, detached: true, env: { ...process.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    let code: number | null = null;
    // A process a block left running holds the pipes open: stop the group when bash exits.
    child.on('exit', (exitCode) => {
      code = exitCode;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // the group is gone already
      }
    });
    child.on('close', () => resolve({ code, stdout, stderr }));
  });
}

describe('the API guides', () => {
  it('cover every guide in docs/api', () => {
    const present = readdirSync(guidesDir).filter((f) => f.endsWith('.md'));
    expect(present.sort()).toEqual([...GUIDES].sort());
  });

  it('run in order, every call answering as the guide says', { timeout: 600_000 }, async () => {
    const blocks = GUIDES.flatMap((guide) => shellBlocks(join(guidesDir, guide), guide));
    const statusLog = join(workDir, '.statuses');
    const scriptPath = join(workDir, '.guides.sh');
    writeFileSync(statusLog, '');
    writeFileSync(scriptPath, script(blocks, statusLog));
    const result = await runBash(scriptPath);

    const started = [...result.stderr.matchAll(/^::block (\d+)$/gm)].map((m) => Number(m[1]));
    const last = blocks[started.at(-1) ?? 0]!;
    expect(
      result.code,
      `bash stopped in ${last.guide}:${last.line} (exit ${result.code})\n${result.stderr.slice(-3000)}\n${result.stdout.slice(-2000)}`,
    ).toBe(0);
    expect(result.stderr).toContain('::done');

    const statuses = statusesByBlock(readFileSync(statusLog, 'utf8'));
    const mismatches: string[] = [];
    blocks.forEach((block, i) => {
      const seen = statuses.get(i) ?? [];
      const ok = block.statuses
        ? JSON.stringify(seen) === JSON.stringify(block.statuses)
        : seen.every((s) => s >= 200 && s < 300);
      if (!ok) {
        mismatches.push(
          `${block.guide}:${block.line}: got ${seen.join(',') || 'no call'}, expected ${block.statuses?.join(',') ?? '2xx'}`,
        );
      }
    });
    expect(mismatches, result.stdout.slice(-4000)).toEqual([]);
  });
});
