import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SentinelEngine } from './sentinel-engine.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A fake `sentinel` executable (a Node script) that records its command line, the SENTINEL_PARAM_
 * variables it got and the configuration file it was given, and passes every policy of it.
 */
function recordingSentinel(dir: string, record: string): string {
  const file = join(dir, 'sentinel');
  writeFileSync(
    file,
    `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
const config = args.find((a) => a.startsWith('-config=')).slice('-config='.length);
fs.writeFileSync(${JSON.stringify(record)}, JSON.stringify({
  args,
  paramVariables: Object.keys(process.env).filter((k) => k.startsWith('SENTINEL_PARAM_')),
  config: fs.readFileSync(config, 'utf8'),
}));
const policies = [...fs.readFileSync(config, 'utf8').matchAll(/^policy "([^"]+)"/gm)].map(([, name]) => ({
  policy: name + '.sentinel', result: true, error: null, allowed_failure: false, trace: { print: '' },
}));
process.stdout.write(JSON.stringify({ result: true, error: null, policies }));
`,
  );
  chmodSync(file, 0o755);
  return file;
}

describe('the Sentinel adapter and policy set parameters', () => {
  it('gives Sentinel the parameters in its configuration file only, never on its command line or in its environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sentinel-engine-'));
    dirs.push(dir);
    const record = join(dir, 'record.json');
    const workDir = join(dir, 'work');
    mkdirSync(workDir, { mode: 0o700 });
    const planFile = join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify({ resource_changes: [] }));
    const secret = 'tok-5b1d-not-on-the-command-line';
    const engine = new SentinelEngine(recordingSentinel(dir, record), 'Sentinel v0.0.0-test');
    const run = await engine.evaluate({
      checkId: 'polchk-1',
      run: {
        id: 'run-1',
        createdAt: '2026-01-01T00:00:00Z',
        message: '',
        speculative: false,
        organization: { name: 'acme' },
        workspace: { id: 'ws-1' },
      },
      planFile,
      workDir,
      sets: [
        {
          id: 'polset-1',
          name: 'guardrails',
          kind: 'kind_a',
          parameters: { api_token: secret, regions: '["eu-west-1"]' },
          policies: [
            { id: 'pol-1', name: 'p', enforcementLevel: 'hard-mandatory', code: 'main = rule { true }' },
          ],
        },
      ],
      timeoutMs: 30_000,
      signal: new AbortController().signal,
    });
    expect(run).toMatchObject({ outcomes: [{ policySetId: 'polset-1', policyName: 'p', result: 'passed' }] });
    const seen = JSON.parse(readFileSync(record, 'utf8'));
    expect(seen.args).toEqual(['apply', '-json', `-config=${join(workDir, 'set-0', 'sentinel.hcl')}`]);
    expect(seen.paramVariables).toEqual([]);
    expect(seen.config).toContain(`param "api_token" {\n  value = "${secret}"\n}`);
    expect(seen.config).toContain('param "regions" {\n  value = ["eu-west-1"]\n}');
    expect(JSON.stringify(run)).not.toContain(secret);
  });
});
