#!/usr/bin/env node
/**
 * Compares a go-tfe run (the JSON events of `go tool test2json`, on stdin) with the committed
 * expectations (scripts/go-tfe/expected.txt) and prints the outcome. Exit 1 on any difference:
 * an expected pass that failed or skipped (a regression), a listed failure that now passes (update
 * the list and the README), or a test that is in neither. Plain Node, no dependencies.
 *
 * Usage: node check.mjs <expected.txt> < events.jsonl
 */
import { readFileSync } from 'node:fs';

const [expectedFile] = process.argv.slice(2);
if (!expectedFile) {
  console.error('usage: check.mjs <expected.txt> < test2json-events');
  process.exit(2);
}

/** `status name  # reason` lines; status: pass | skip | fail | not-run. */
const expected = new Map();
for (const [i, raw] of readFileSync(expectedFile, 'utf8').split('\n').entries()) {
  const line = raw.trim();
  if (!line || line.startsWith('#')) continue;
  const match = /^(pass|skip|fail|not-run)\s+(\S+)(?:\s+#\s*(.*))?$/.exec(line);
  if (!match) {
    console.error(`${expectedFile}:${i + 1}: cannot read "${line}"`);
    process.exit(2);
  }
  const [, status, name, reason = ''] = match;
  if (status !== 'pass' && !reason) {
    console.error(`${expectedFile}:${i + 1}: a ${status} entry needs "# reason"`);
    process.exit(2);
  }
  expected.set(name, { status, reason });
}

const input = readFileSync(0, 'utf8');
/** Final action per test, and its output lines (shown for unexpected outcomes). */
const actual = new Map();
const output = new Map();
for (const line of input.split('\n')) {
  if (!line.startsWith('{')) continue;
  let event;
  try {
    event = JSON.parse(line);
  } catch {
    continue;
  }
  if (!event.Test) continue;
  if (event.Action === 'output') {
    const lines = output.get(event.Test) ?? [];
    if (lines.length < 40) lines.push(event.Output.replace(/\n$/, ''));
    output.set(event.Test, lines);
  } else if (['pass', 'fail', 'skip'].includes(event.Action)) {
    actual.set(event.Test, event.Action);
  }
}

const problems = [];
const counts = { pass: 0, fail: 0, skip: 0 };
for (const [name, status] of actual) {
  counts[status]++;
  const want = expected.get(name);
  if (!want) problems.push(`${name}: ${status}, but not in ${expectedFile}`);
  else if (want.status === 'not-run') problems.push(`${name}: ran (${status}) although listed as not run`);
  else if (want.status !== status) {
    const what = want.status === 'pass' ? 'REGRESSION' : 'changed';
    problems.push(
      `${name}: ${what}: expected ${want.status}, got ${status}${want.reason ? ` (${want.reason})` : ''}`,
    );
    for (const l of output.get(name) ?? []) problems.push(`    | ${l}`);
  }
}
for (const [name, want] of expected) {
  if (want.status !== 'not-run' && !actual.has(name))
    problems.push(`${name}: expected ${want.status}, did not run`);
}

const byStatus = (s) => [...expected].filter(([, w]) => w.status === s);
const knownFailures = byStatus('fail');
const notRun = byStatus('not-run');
if (knownFailures.length) {
  console.log(`known failures (${knownFailures.length}), outside this product:`);
  for (const [name, w] of knownFailures) console.log(`  ${name}: ${w.reason}`);
}
const skips = byStatus('skip');
if (skips.length) {
  console.log(`skipped by the tests themselves (${skips.length}):`);
  for (const [name, w] of skips) console.log(`  ${name}: ${w.reason}`);
}
if (notRun.length) {
  console.log(`not run (${notRun.length}):`);
  for (const [name, w] of notRun) console.log(`  ${name}: ${w.reason}`);
}
if (problems.length) {
  console.log(`\n${problems.length} difference(s) from ${expectedFile}:`);
  for (const p of problems) console.log(`  ${p}`);
}
const unexpected = problems.filter((p) => !p.startsWith('    |')).length;
console.log(
  `\nas go test reports them: ${counts.pass} pass, ${counts.fail} fail, ${counts.skip} skip ` +
    `(${knownFailures.length} failures expected, ${notRun.length} tests not run)`,
);
// The closing line counts outcomes against the list: failed = differences from it.
console.log(`go-tfe: ${counts.pass} passed, ${unexpected} failed`);
process.exit(unexpected > 0 ? 1 : 0);
