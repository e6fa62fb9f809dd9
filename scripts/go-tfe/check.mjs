#!/usr/bin/env node
/**
 * Compares one run of go-tfe's tests (the JSON events of `go tool test2json`, on stdin) with the
 * committed expectations, prints go test's own counts and the verdict. Exit 1 on any difference:
 * an unexpected failure or skip, an expected failure that now passes (move it to pass, so the
 * list stays measured), a test or subtest the lists do not name, or a listed one that did not
 * run. Plain Node, no dependencies.
 *
 * Usage: node check.mjs --vocabulary NAME --selected <file> --ran <file> --expected <file>... < events
 *   --selected  the top-level tests this run covers, not-run ones included, one a line
 *   --ran       the top-level tests it started
 *   --expected  expectation files; a later file's line overrides an earlier one for the same name
 *
 * Expectation lines: `<pass|fail|skip|not-run> <test or test/subtest>  # reason` (reason required
 * for all but pass). `skip`: the test skips itself; `not-run`: the job does not start it (a
 * top-level test only). A `fail` reason names the cause in one line, or several causes separated
 * by "; "; the expected failures print counted by cause.
 */
import { readFileSync } from 'node:fs';

const options = { expected: [] };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [flag, value] = [argv[i], argv[i + 1]];
  if (flag === '--expected') options.expected.push(value);
  else if (['--ran', '--selected', '--vocabulary'].includes(flag)) options[flag.slice(2)] = value;
  else {
    console.error(`check: unknown option ${flag}`);
    process.exit(2);
  }
}
if (!options.vocabulary || !options.selected || !options.ran || options.expected.length === 0) {
  console.error(
    'usage: check.mjs --vocabulary NAME --selected <file> --ran <file> --expected <file>... < events',
  );
  process.exit(2);
}

/** name → { status, reason, file } */
const expected = new Map();
for (const file of options.expected) {
  for (const [i, raw] of readFileSync(file, 'utf8').split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(pass|fail|skip|not-run)\s+(\S+)(?:\s+#\s*(.*))?$/.exec(line);
    const fault = !match
      ? `cannot read "${line}"`
      : match[1] !== 'pass' && !match[3]
        ? `a ${match[1]} line needs "# reason"`
        : match[1] === 'not-run' && match[2].includes('/')
          ? 'not-run names a top-level test'
          : undefined;
    if (fault) {
      console.error(`${file}:${i + 1}: ${fault}`);
      process.exit(2);
    }
    expected.set(match[2], { status: match[1], reason: match[3] ?? '', file });
  }
}
const readList = (file) => new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean));
const selected = readList(options.selected);
const ran = readList(options.ran);
const topOf = (name) => name.split('/')[0];

/** Final outcome per test and subtest, and their output (shown for differences). */
const actual = new Map();
const output = new Map();
for (const line of readFileSync(0, 'utf8').split('\n')) {
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
    if (lines.length < 30) lines.push(event.Output.replace(/\n$/, ''));
    output.set(event.Test, lines);
  } else if (['pass', 'fail', 'skip'].includes(event.Action)) {
    actual.set(event.Test, event.Action);
  }
}

const differences = [];
const differ = (name, text) => {
  differences.push(`  ${name}: ${text}`);
  for (const l of output.get(name) ?? []) if (l.trim()) differences.push(`      | ${l}`);
};
const counts = {
  top: { pass: 0, fail: 0, skip: 0, unexpected: 0 },
  sub: { pass: 0, fail: 0, skip: 0, unexpected: 0 },
};
for (const [name, status] of actual) {
  const c = name.includes('/') ? counts.sub : counts.top;
  c[status]++;
  const want = expected.get(name);
  let text;
  if (!want) text = `${status}, and no expectation names it (add it with its outcome)`;
  else if (want.status === 'not-run') text = `${status}, but listed as not run`;
  else if (want.status === status) continue;
  else if (status === 'pass')
    text = `UNEXPECTED PASS (listed as ${want.status}: ${want.reason}): move it to pass in ${want.file}`;
  else if (status === 'fail') text = `UNEXPECTED FAILURE (expected ${want.status})`;
  else text = `UNEXPECTED SKIP (expected ${want.status})`;
  if (status === 'fail') c.unexpected++;
  differ(name, text);
}
for (const [name, want] of expected) {
  if (want.status !== 'not-run' && ran.has(topOf(name)) && !actual.has(name))
    differences.push(`  ${name}: expected ${want.status}, did not run`);
}

const line = (c) =>
  `${c.pass} passed, ${c.fail} failed (${c.unexpected ? `${c.unexpected} unexpected` : 'all expected'}), ${c.skip} skipped`;
const notRun = [...expected].filter(([name, w]) => w.status === 'not-run' && selected.has(name));
const v = options.vocabulary;
console.log(`\n== go-tfe in API_VOCABULARY=${v}: what go test reported`);
console.log(`top-level tests: ${line(counts.top)}  (${ran.size} run, ${notRun.length} not run)`);
console.log(`subtests:        ${line(counts.sub)}`);

const byCause = new Map();
for (const [name, status] of actual) {
  const want = expected.get(name);
  if (status !== 'fail' || want?.status !== 'fail') continue;
  for (const cause of want.reason.split('; ')) byCause.set(cause, [...(byCause.get(cause) ?? []), name]);
}
if (byCause.size) {
  console.log('expected failures by cause (tests and subtests failing for it):');
  for (const [cause, names] of [...byCause].sort((a, b) => b[1].length - a[1].length))
    console.log(`  ${String(names.length).padStart(3)}  ${cause}`);
}
const skipped = [...actual].filter(([, s]) => s === 'skip').map(([n]) => n);
if (skipped.length) {
  console.log('skipped by the tests themselves:');
  for (const name of skipped) console.log(`  ${name}: ${expected.get(name)?.reason ?? '(not listed)'}`);
}
if (notRun.length) {
  console.log('not run by this job:');
  for (const [name, w] of notRun) console.log(`  ${name}: ${w.reason}`);
}
if (differences.length) {
  const n = differences.filter((d) => !d.startsWith('      |')).length;
  console.log(`\n${n} difference(s) from ${options.expected.join(' + ')}:`);
  for (const d of differences) console.log(d);
  console.log(`go-tfe in API_VOCABULARY=${v}: FAILED (${n} difference(s) from the expectations)`);
  process.exit(1);
}
console.log(`go-tfe in API_VOCABULARY=${v}: as expected`);
