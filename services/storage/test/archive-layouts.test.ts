import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ArchiveLayout, checkLayout, readLayout } from '../src/domain/archive-layouts.js';
import { DEFAULT_UPLOAD_LIMITS } from '../src/domain/upload-limits.js';
import { ArchiveInspector } from '../src/archives/archive-inspector.js';
import { parseHcl } from '../src/archives/parse-hcl.js';
import { type ArchiveEntry, tarGzOf } from './support/archives.js';

/** Checks the files of an archive (path → content) against a layout, with the real HCL parser. */
async function check(layout: ArchiveLayout, files: Record<string, string>, root = '') {
  const entries = new Set(Object.keys(files));
  const configs = new Map(Object.entries(files));
  return checkLayout({ layout, root, configs, entries }, parseHcl);
}

const SENTINEL_SET = {
  'sentinel.hcl': `
module "tfplan-functions" {
  source = "./modules/tfplan-functions.sentinel"
}

import "module" "aws" {
  source = "modules/aws.sentinel"
}

import "static" "allowed" {
  source = "./data/allowed.json"
  format = "json"
}

param "max_instances" {
  value = 3
}

policy "restrict-instance-type" {
  source            = "./policies/restrict-instance-type.sentinel"
  enforcement_level = "soft-mandatory"
  params = {
    allowed = ["t3.micro"]
  }
}

policy "require-tags" {
  source = "./policies/require-tags.sentinel"
}
`,
  'modules/tfplan-functions.sentinel': 'f = func() { return true }\n',
  'modules/aws.sentinel': 'g = 1\n',
  'data/allowed.json': '{}',
  'policies/restrict-instance-type.sentinel': 'main = rule { true }\n',
  'policies/require-tags.sentinel': 'main = rule { true }\n',
};

describe('sentinel layout', () => {
  it('accepts a set with policies, modules, imports and params whose sources are all present', async () => {
    expect(await check('sentinel', SENTINEL_SET)).toBeUndefined();
  });

  it('looks for sentinel.hcl in the root it is given and resolves sources from there', async () => {
    const nested = Object.fromEntries(Object.entries(SENTINEL_SET).map(([p, c]) => [`governance/${p}`, c]));
    expect(await check('sentinel', { ...nested, 'README.md': '# hi' }, 'governance')).toBeUndefined();
    expect(await check('sentinel', SENTINEL_SET, 'governance')).toEqual({
      code: 'STORAGE_ARCHIVE_CONFIG_MISSING',
      message: 'the archive has no sentinel.hcl in "governance"',
    });
  });

  it('names a policy whose source is not in the archive', async () => {
    const { 'policies/require-tags.sentinel': _gone, ...rest } = SENTINEL_SET;
    expect(await check('sentinel', rest)).toEqual({
      code: 'STORAGE_ARCHIVE_SOURCE_MISSING',
      message:
        'sentinel.hcl: policy "require-tags" source "./policies/require-tags.sentinel" is not in the archive',
    });
  });

  it('names a module whose source is missing, and a source outside the root', async () => {
    const { 'modules/aws.sentinel': _gone, ...rest } = SENTINEL_SET;
    expect((await check('sentinel', rest))?.message).toBe(
      'sentinel.hcl: import "module" "aws" source "modules/aws.sentinel" is not in the archive',
    );
    const outside = await check(
      'sentinel',
      {
        'p/sentinel.hcl': 'policy "a" {\n  source = "../a.sentinel"\n}\n',
        'a.sentinel': 'main = true',
      },
      'p',
    );
    expect(outside).toEqual({
      code: 'STORAGE_ARCHIVE_SOURCE_MISSING',
      message: 'p/sentinel.hcl: policy "a" source "../a.sentinel" is outside "p"',
    });
  });

  it('refuses HCL that does not parse, with the parser diagnostic', async () => {
    const result = await check('sentinel', { 'sentinel.hcl': 'policy "a" {\n  source = \n}\n' });
    expect(result?.code).toBe('STORAGE_ARCHIVE_CONFIG_INVALID');
    expect(result?.message).toMatch(/^sentinel\.hcl cannot be parsed: sentinel\.hcl:2,/);
  });

  it('refuses an archive that holds only a README.md', async () => {
    expect(await check('sentinel', { 'README.md': '# policies' })).toEqual({
      code: 'STORAGE_ARCHIVE_CONFIG_MISSING',
      message: 'the archive has no sentinel.hcl at its root',
    });
  });

  it('refuses remote sources, which cannot be fetched here', async () => {
    for (const source of [
      'https://raw.githubusercontent.com/acme/p/main/a.sentinel',
      'git::https://example.com/p.git//a.sentinel',
    ]) {
      const result = await check('sentinel', {
        'sentinel.hcl': `module "m" {\n  source = "${source}"\n}\npolicy "a" {\n  source = "./a.sentinel"\n}\n`,
        'a.sentinel': 'main = true',
      });
      expect(result).toEqual({
        code: 'STORAGE_ARCHIVE_CONFIG_INVALID',
        message: `sentinel.hcl: module "m" source "${source}" is remote; remote sources cannot be fetched, put the file in the archive`,
      });
    }
  });

  it.each([
    ['no policy at all', 'module "m" {\n  source = "./a.sentinel"\n}\n', 'sentinel.hcl: declares no policy'],
    [
      'a policy without source',
      'policy "a" {\n  enforcement_level = "advisory"\n}\n',
      'sentinel.hcl: policy "a" has no source',
    ],
    [
      'an unknown enforcement level',
      'policy "a" {\n  source = "./a.sentinel"\n  enforcement_level = "mandatory"\n}\n',
      'sentinel.hcl: policy "a" has enforcement_level "mandatory"; use "advisory", "soft-mandatory", "hard-mandatory"',
    ],
    [
      'an unknown block',
      'policy "a" {\n  source = "./a.sentinel"\n}\nrule "x" {}\n',
      'sentinel.hcl: unknown block or attribute "rule"',
    ],
    [
      'a policy without a name',
      'policy {\n  source = "./a.sentinel"\n}\n',
      'sentinel.hcl: policy blocks need a name (policy "name" { … })',
    ],
    [
      'a policy declared twice',
      'policy "a" {\n  source = "./a.sentinel"\n}\npolicy "a" {\n  source = "./a.sentinel"\n}\n',
      'sentinel.hcl: policy "a" is declared more than once',
    ],
    [
      'a computed source',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an HCL interpolation, not a JS one
      'policy "a" {\n  source = "./${var.x}.sentinel"\n}\n',
      'sentinel.hcl: policy "a" source must be a literal string',
    ],
    [
      'an absolute source',
      'policy "a" {\n  source = "/etc/passwd"\n}\n',
      'sentinel.hcl: policy "a" source "/etc/passwd" must be a path relative to sentinel.hcl',
    ],
    [
      'policy names that are Object.prototype keys, missing',
      'policy "__proto__" {\n  source = "./p.sentinel"\n}\n',
      'sentinel.hcl: policy "__proto__" source "./p.sentinel" is not in the archive',
    ],
  ])('refuses %s', async (_label, hcl, message) => {
    expect((await check('sentinel', { 'sentinel.hcl': hcl, 'a.sentinel': 'main = true' }))?.message).toBe(
      message,
    );
  });
});

describe('opa layout', () => {
  const POLICIES_HCL = `
policy "public_ingress" {
  query             = "data.terraform.policies.public_ingress.deny"
  enforcement_level = "mandatory"
  description       = "No security group open to the world"
}

policy "friday_deploys" {
  query = "data.terraform.policies.friday_deploys.deny"
}
`;

  it('accepts policies.hcl with queries, and policies.json in the JSON syntax of HCL', async () => {
    expect(
      await check('opa', { 'policies.hcl': POLICIES_HCL, 'policies/ingress.rego': 'package x' }),
    ).toBeUndefined();
    const json = JSON.stringify({
      policy: { deny_all: { query: 'data.terraform.policies.deny_all.deny', enforcement_level: 'advisory' } },
    });
    expect(await check('opa', { 'policies.json': json, 'deny.rego': 'package x' })).toBeUndefined();
  });

  it.each([
    [
      { 'README.md': '#' },
      'STORAGE_ARCHIVE_CONFIG_MISSING',
      'the archive has no policies.hcl or policies.json at its root',
    ],
    [{ 'policies.hcl': POLICIES_HCL }, 'STORAGE_ARCHIVE_SOURCE_MISSING', 'the archive has no .rego files'],
    [
      { 'policies.hcl': 'policy "a" {\n  enforcement_level = "mandatory"\n}\n', 'a.rego': '' },
      'STORAGE_ARCHIVE_CONFIG_INVALID',
      'policies.hcl: policy "a" has no query',
    ],
    [
      {
        'policies.hcl': 'policy "a" {\n  query = "data.a.deny"\n  enforcement_level = "soft-mandatory"\n}\n',
        'a.rego': '',
      },
      'STORAGE_ARCHIVE_CONFIG_INVALID',
      'policies.hcl: policy "a" has enforcement_level "soft-mandatory"; use "advisory", "mandatory"',
    ],
    [
      { 'policies.hcl': 'policy "a" {\n  query = "input.x"\n}\n', 'a.rego': '' },
      'STORAGE_ARCHIVE_CONFIG_INVALID',
      'policies.hcl: policy "a" query must be a literal string that starts with "data." (for example "data.terraform.policies.a.deny")',
    ],
    [
      { 'policies.hcl': 'policy "a" {\n  query = "data.a.deny"\n}\nsentinel {}\n', 'a.rego': '' },
      'STORAGE_ARCHIVE_CONFIG_INVALID',
      'policies.hcl: unknown block or attribute "sentinel"',
    ],
    [
      { 'policies.json': '{"policy": ', 'a.rego': '' },
      'STORAGE_ARCHIVE_CONFIG_INVALID',
      expect.stringMatching(/^policies\.json cannot be parsed: /),
    ],
  ])('refuses %j', async (files, code, message) => {
    expect(await check('opa', files)).toEqual({ code, message });
  });

  it('looks for the .rego files inside the root', async () => {
    const files = { 'opa/policies.hcl': POLICIES_HCL, 'elsewhere/a.rego': 'package x' };
    expect((await check('opa', files, 'opa'))?.message).toBe('the archive has no .rego files in "opa"');
  });
});

describe('the inspector applies the layout to the archive it streams', () => {
  const inspect = async (entries: ArchiveEntry[], layout: ArchiveLayout, root = '') => {
    const inspector = new ArchiveInspector(DEFAULT_UPLOAD_LIMITS, { layout, root });
    await inspector.write(await tarGzOf(entries));
    return inspector.finish();
  };

  it('accepts a conforming archive and refuses one whose policy source is missing', async () => {
    const hcl = 'policy "a" {\n  source = "./a.sentinel"\n}\n';
    const good = await inspect(
      [
        { name: './sentinel.hcl', content: hcl },
        { name: './a.sentinel', content: 'main = true' },
      ],
      'sentinel',
    );
    expect(good.ok).toBe(true);
    const bad = await inspect([{ name: 'sentinel.hcl', content: hcl }], 'sentinel');
    expect(!bad.ok && bad.rejection.message).toBe(
      'sentinel.hcl: policy "a" source "./a.sentinel" is not in the archive',
    );
  });

  it('counts a link inside the archive as a source, and requires nothing without a layout', async () => {
    const linked = await inspect(
      [
        { name: 'sentinel.hcl', content: 'policy "a" {\n  source = "./a.sentinel"\n}\n' },
        { name: 'shared/a.sentinel', content: 'main = true' },
        { name: 'a.sentinel', type: 'symlink', linkname: 'shared/a.sentinel' },
      ],
      'sentinel',
    );
    expect(linked.ok).toBe(true);
    expect((await inspect([{ name: 'README.md', content: '#' }], '')).ok).toBe(true);
  });

  it('refuses a configuration file too large to be one before parsing it', async () => {
    const result = await inspect(
      [{ name: 'sentinel.hcl', content: `# ${'x'.repeat(70 * 1024)}\n` }],
      'sentinel',
    );
    expect(!result.ok && result.rejection).toEqual({
      code: 'STORAGE_ARCHIVE_CONFIG_INVALID',
      message: 'sentinel.hcl is larger than 64 KiB',
    });
  });
});

/**
 * What the configuration file declares, read once here and carried with the version: runs and the
 * evaluator take these definitions as they are, so this is the only reading of them. The files
 * follow upstream's documented layouts (Sentinel's `sentinel.hcl`; OPA's `policies.hcl` and its
 * JSON variant `policies.json`).
 */
describe('the declaration read from the configuration file', () => {
  const read = async (layout: ArchiveLayout, files: Record<string, string>, root = '') => {
    const verdict = await readLayout(
      { layout, root, configs: new Map(Object.entries(files)), entries: new Set(Object.keys(files)) },
      parseHcl,
    );
    if (!verdict.ok) throw new Error(verdict.rejection.message);
    return verdict.declaration!;
  };

  it('sentinel.hcl: names, sources and levels (advisory by default), and the other blocks for the engine', async () => {
    const declaration = await read('sentinel', {
      ...SENTINEL_SET,
      'sentinel.hcl': `${SENTINEL_SET['sentinel.hcl']}\ntest {\n  rules = { main = true }\n}\n`,
    });
    expect(declaration.configPath).toBe('sentinel.hcl');
    // hcl2json hands blocks out by name, not in file order.
    expect(declaration.policies).toEqual([
      {
        name: 'require-tags',
        enforcementLevel: 'advisory',
        source: './policies/require-tags.sentinel',
        query: '',
        description: '',
      },
      {
        name: 'restrict-instance-type',
        enforcementLevel: 'soft-mandatory',
        source: './policies/restrict-instance-type.sentinel',
        query: '',
        description: '',
      },
    ]);
    // Every block but tests (not the engine's concern), for the engine's configuration.
    expect(Object.keys(declaration.sentinelBlocks!).sort()).toEqual(['import', 'module', 'param', 'policy']);
    expect(declaration.sentinelBlocks!.param).toEqual({ max_instances: [{ value: 3 }] });
  });

  it('the repository examples/sentinel set: three policies at three levels, each source in the set', async () => {
    const example = (path: string) =>
      readFileSync(new URL(`../../../examples/sentinel/${path}`, import.meta.url), 'utf8');
    const config = example('sentinel.hcl');
    const sources = [...config.matchAll(/source\s*=\s*"\.\/([^"]+)"/g)].map((m) => m[1]!);
    const files = Object.fromEntries([['sentinel.hcl', config], ...sources.map((s) => [s, example(s)])]);
    const { policies } = await read('sentinel', files);
    expect(policies.map((p) => [p.name, p.enforcementLevel]).sort()).toEqual([
      ['allowed-instance-types', 'advisory'],
      ['require-owner-tag', 'soft-mandatory'],
      ['restrict-public-buckets', 'hard-mandatory'],
    ]);
  });

  it('reads the file of the root it is given, recording the root', async () => {
    const nested = Object.fromEntries(Object.entries(SENTINEL_SET).map(([p, c]) => [`prod/${p}`, c]));
    const declaration = await read('sentinel', nested, 'prod');
    expect([declaration.root, declaration.configPath]).toEqual(['prod', 'prod/sentinel.hcl']);
  });

  it("policies.hcl as upstream's OPA tutorial writes it: query, level (advisory by default), description", async () => {
    const declaration = await read('opa', {
      'policies.hcl': `
        policy "friday_deploys" {
          query = "data.terraform.policies.friday_deploys.deny"
          enforcement_level = "mandatory"
        }

        policy "public_ingress" {
          query = "data.terraform.policies.public_ingress.deny"
        }

        policy "compute-001-aws-vm-size" {
          query = "data.terraform.policies.aws.compute_001.rule"
          enforcement_level = "advisory"
          description = "Enforce preferred VM size"
        }
      `,
      'policies/friday_deploys.rego': 'package terraform.policies.friday_deploys',
    });
    expect(declaration.sentinelBlocks).toBeUndefined();
    // hcl2json hands blocks out by name, not in file order.
    expect(declaration.policies).toEqual([
      {
        name: 'compute-001-aws-vm-size',
        enforcementLevel: 'advisory',
        source: '',
        query: 'data.terraform.policies.aws.compute_001.rule',
        description: 'Enforce preferred VM size',
      },
      {
        name: 'friday_deploys',
        enforcementLevel: 'mandatory',
        source: '',
        query: 'data.terraform.policies.friday_deploys.deny',
        description: '',
      },
      {
        name: 'public_ingress',
        enforcementLevel: 'advisory',
        source: '',
        query: 'data.terraform.policies.public_ingress.deny',
        description: '',
      },
    ]);
  });

  it("policies.json in HCL's JSON syntax: one body, a list of bodies, or a list of labelled blocks", async () => {
    const expected = [
      ['a', 'mandatory', 'data.t.a.deny', ''],
      ['b', 'advisory', 'data.t.b.deny', 'B'],
    ];
    const shapes = [
      {
        policy: {
          a: { query: 'data.t.a.deny', enforcement_level: 'mandatory' },
          b: [{ query: 'data.t.b.deny', description: 'B' }],
        },
      },
      {
        policy: [
          { a: { query: 'data.t.a.deny', enforcement_level: 'mandatory' } },
          { b: { query: 'data.t.b.deny', description: 'B' } },
        ],
      },
    ];
    for (const shape of shapes) {
      const { policies, configPath } = await read('opa', {
        'policies.json': JSON.stringify(shape),
        'a.rego': 'package t.a',
      });
      expect(configPath).toBe('policies.json');
      expect(policies.map((p) => [p.name, p.enforcementLevel, p.query, p.description])).toEqual(expected);
    }
    const repeated = JSON.stringify({
      policy: [{ a: { query: 'data.a' } }, { a: { query: 'data.b' } }],
    });
    expect(await check('opa', { 'policies.json': repeated, 'a.rego': '' })).toEqual({
      code: 'STORAGE_ARCHIVE_CONFIG_INVALID',
      message: 'policies.json: policy "a" is declared more than once',
    });
  });

  it('prefers policies.hcl to policies.json in the same root', async () => {
    const { policies, configPath } = await read(
      'opa',
      {
        'prod/policies.hcl': 'policy "prod" {\n  query = "data.prod.deny"\n}\n',
        'prod/policies.json': '{"policy": {"ignored": {"query": "data.x"}}}',
        'prod/a.rego': 'package prod',
      },
      'prod',
    );
    expect([configPath, policies.map((p) => p.name)]).toEqual(['prod/policies.hcl', ['prod']]);
  });

  it('the inspector hands the declaration out with an accepted archive, and none without a layout', async () => {
    const entries: ArchiveEntry[] = [
      {
        name: 'sentinel.hcl',
        content: 'policy "a" {\n  source = "./a.sentinel"\n  enforcement_level = "hard-mandatory"\n}\n',
      },
      { name: 'a.sentinel', content: 'main = true' },
    ];
    const inspector = new ArchiveInspector(DEFAULT_UPLOAD_LIMITS, { layout: 'sentinel', root: '' });
    await inspector.write(await tarGzOf(entries));
    const accepted = await inspector.finish();
    expect(accepted.ok && accepted.declaration?.policies).toEqual([
      { name: 'a', enforcementLevel: 'hard-mandatory', source: './a.sentinel', query: '', description: '' },
    ]);
    const plain = new ArchiveInspector(DEFAULT_UPLOAD_LIMITS);
    await plain.write(await tarGzOf(entries));
    const none = await plain.finish();
    expect(none.ok && none.declaration).toBeUndefined();
  });
});

describe('the repository examples/opa set', () => {
  it('declares three policies, each query answered by a package of its Rego files', async () => {
    const dir = new URL('../../../examples/opa/', import.meta.url);
    const rego = readdirSync(new URL('policies/', dir)).map((f) => `policies/${f}`);
    const files = Object.fromEntries([
      ['policies.hcl', readFileSync(new URL('policies.hcl', dir), 'utf8')],
      ...rego.map((f) => [f, readFileSync(new URL(f, dir), 'utf8')]),
    ]);
    const verdict = await readLayout(
      {
        layout: 'opa',
        root: '',
        configs: new Map(Object.entries(files)),
        entries: new Set(Object.keys(files)),
      },
      parseHcl,
    );
    const policies = verdict.ok ? verdict.declaration!.policies : [];
    expect(policies.map((p) => [p.name, p.enforcementLevel]).sort()).toEqual([
      ['allowed_instance_types', 'advisory'],
      ['require_owner_tag', 'mandatory'],
      ['restrict_public_buckets', 'mandatory'],
    ]);
    const packages = rego.map((f) => /^package (\S+)/m.exec(files[f]!)![1]);
    for (const p of policies)
      expect(packages).toContain(p.query.replace(/^data\./, '').replace(/\.deny$/, ''));
  });
});
