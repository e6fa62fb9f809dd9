import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ARCHIVE_CONFIG_FILE, hclValue, layOutArchive, layOutPolicies, parameterValue } from './layout.js';

/** HashiCorp's HCL parser (storage's, at upload), here only to read back what the adapter wrote. */
const hcl2json = createRequire(import.meta.url)('@cdktn/hcl2json') as {
  parse: (filename: string, contents: string) => Promise<unknown>;
};
const parseHcl = (text: string, filename: string) => hcl2json.parse(filename, text);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-layout-'));
  dirs.push(dir);
  return dir;
};
/** Where the adapter would have written the plan's mock imports (only named here, never read). */
const MOCK_DIR = join(tmpdir(), 'policyhub-layout-mocks');
const mocks = {
  'tfplan/v2': join(MOCK_DIR, 'mock-tfplan-v2.sentinel'),
  tfrun: join(MOCK_DIR, 'mock-tfrun.sentinel'),
};

// biome-ignore lint/suspicious/noTemplateCurlyInString: HCL template syntax, not a JS one
const TEMPLATE = 'literal ${var.x} and %{if} kept';

/** Stored parameter values (strings, as the API keeps them) and what Sentinel must get. */
const PARAMETERS: Record<string, string> = {
  regions: '["eu-west-1", "us-east-1"]',
  limit: '3',
  strict: 'true',
  owners: '{"team": {"ids": [1, 2]}}',
  text: 'plain text, not JSON',
  quoted: '"007"',
  zero_padded: '007',
  template: TEMPLATE,
  token: 's3cr3t-token',
  empty: '',
};
const EXPECTED: Record<string, unknown> = {
  regions: ['eu-west-1', 'us-east-1'],
  limit: 3,
  strict: true,
  owners: { team: { ids: [1, 2] } },
  text: 'plain text, not JSON',
  quoted: '007',
  zero_padded: '007',
  template: TEMPLATE,
  token: 's3cr3t-token',
  empty: '',
};

/** hcl2json shows template escapes as written ($${ and %%{); Sentinel reads them as literal text. */
const literal = (v: unknown): unknown =>
  typeof v === 'string'
    ? v.replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{')
    : Array.isArray(v)
      ? v.map(literal)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, literal(x)]))
        : v;

const paramValues = (config: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(config.param as Record<string, Array<{ value: unknown }>>).map(([k, [body]]) => [
      k,
      literal(body!.value),
    ]),
  );

describe('Sentinel params from policy set parameters', () => {
  it('reads a stored value as JSON when it is JSON, else as the string itself', () => {
    for (const [key, stored] of Object.entries(PARAMETERS))
      expect(parameterValue(stored), key).toEqual(EXPECTED[key]);
    expect(hclValue({ 'a b': [1, 'x', null, false] })).toBe('{"a b" = [1, "x", null, false]}');
    expect(hclValue(TEMPLATE)).toBe('"literal $$' + '{var.x} and %%{if} kept"');
  });

  it('writes param blocks into the generated sentinel.hcl (0600), never anywhere else', async () => {
    const dir = join(tempDir(), 'set-0');
    const layout = await layOutPolicies(
      dir,
      {
        id: 'polset-1',
        name: 'params',
        parameters: PARAMETERS,
        policies: [{ name: 'uses-params', enforcementLevel: 'hard-mandatory', code: 'main = rule { true }' }],
      },
      mocks,
    );
    expect(statSync(layout.configFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(layout.configFile, 'utf8');
    expect(text).toContain('param "regions" {\n  value = ["eu-west-1", "us-east-1"]\n}');
    expect(text).toContain('param "text" {\n  value = "plain text, not JSON"\n}');
    const config = (await parseHcl(text, 'sentinel.hcl')) as Record<string, unknown>;
    expect(paramValues(config)).toEqual(EXPECTED);
    expect(Object.keys(config.policy as object)).toEqual(['uses-params']);
  });

  it('an archive set: the set parameters override params of the same name in its sentinel.hcl, others are kept', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'prod'));
    const layout = await layOutArchive(
      { file: join(dir, 'a.tar.gz'), dir, policiesPath: 'prod' },
      {
        configPath: 'prod/sentinel.hcl',
        policies: [
          { name: 'p', enforcementLevel: 'advisory', source: './p.sentinel', query: '', description: '' },
        ],
        // hcl2json's shape of the archive's prod/sentinel.hcl, as storage recorded it at upload.
        sentinelBlocks: (await parseHcl(
          'policy "p" {\n  source = "./p.sentinel"\n}\nparam "regions" {\n  value = ["ap-south-1"]\n}\nparam "kept" {\n  value = "from the archive, $${literal}"\n}\n',
          'sentinel.hcl',
        )) as Record<string, unknown>,
      },
      {
        id: 'polset-2',
        name: 'archived',
        parameters: {
          regions: PARAMETERS.regions!,
          token: PARAMETERS.token!,
          template: PARAMETERS.template!,
        },
      },
      mocks,
    );
    expect(layout.configFile).toBe(join(dir, 'prod', ARCHIVE_CONFIG_FILE));
    expect(statSync(layout.configFile).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(layout.configFile, 'utf8'));
    // In HCL's JSON syntax strings are templates: ours are escaped, the archive's kept as written.
    expect(config.param.template).toEqual([
      { value: TEMPLATE.replace('$', () => '$$').replace('%', () => '%%') },
    ]);
    expect(config.param.kept).toEqual([{ value: 'from the archive, $${literal}' }]);
    expect(paramValues(config)).toEqual({
      regions: ['eu-west-1', 'us-east-1'],
      kept: `from the archive, ${'$'}{literal}`,
      token: 's3cr3t-token',
      template: EXPECTED.template,
    });
  });
});

describe("a versioned set's Sentinel configuration, built from the declaration recorded at upload", () => {
  it('runs exactly the declared policies at their recorded levels, keeping the rest of the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sentinel-layout-'));
    dirs.push(dir);
    const layout = await layOutArchive(
      { file: `${dir}.tar.gz`, dir, policiesPath: '' },
      {
        configPath: 'sentinel.hcl',
        policies: [
          {
            name: 'a',
            enforcementLevel: 'hard-mandatory',
            source: './p/a.sentinel',
            query: '',
            description: '',
          },
        ],
        // hcl2json's shape of the file, as storage recorded it.
        sentinelBlocks: {
          module: { helpers: [{ source: './helpers.sentinel' }] },
          mock: {
            'tfplan/v2': [{ module: [{ source: './own-mock.sentinel' }] }],
            extra: [{ data: { x: 1 } }],
          },
          param: { region: [{ value: 'eu' }], other: [{ value: 'kept' }] },
          policy: {
            a: [{ source: './p/a.sentinel', enforcement_level: 'advisory', params: { max: 2 } }],
            unrecorded: [{ source: './p/b.sentinel' }],
          },
        },
      },
      { id: 'polset-v', name: 'versioned', parameters: { region: 'us' } },
      mocks,
    );
    expect(layout.policies).toEqual([
      { name: 'a', enforcementLevel: 'hard-mandatory', source: './p/a.sentinel', file: 'a.sentinel' },
    ]);
    expect(layout.configFile).toBe(join(dir, ARCHIVE_CONFIG_FILE));
    expect(JSON.parse(readFileSync(layout.configFile, 'utf8'))).toEqual({
      module: { helpers: [{ source: './helpers.sentinel' }] },
      // The recorded level and source win; the block's params stay.
      policy: { a: [{ source: './p/a.sentinel', enforcement_level: 'hard-mandatory', params: { max: 2 } }] },
      // Provided imports are mocked from the plan; the archive's other mocks stay.
      mock: {
        extra: [{ data: { x: 1 } }],
        'tfplan/v2': [{ module: [{ source: mocks['tfplan/v2'] }] }],
        tfrun: [{ module: [{ source: mocks.tfrun }] }],
      },
      // The set's parameters override params of the same name.
      param: { region: [{ value: 'us' }], other: [{ value: 'kept' }] },
    });
  });
});
