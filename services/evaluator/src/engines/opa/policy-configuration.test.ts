import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PreparedArchive } from '../engine.js';
import { readOpaConfiguration } from './policy-configuration.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** An extracted archive holding `files` (paths relative to its root). */
function archive(files: Record<string, string>, policiesPath = ''): PreparedArchive {
  const dir = mkdtempSync(join(tmpdir(), 'opa-config-'));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return { file: `${dir}.tar.gz`, dir, policiesPath };
}

describe('OPA policy set configuration (policies.hcl / policies.json)', () => {
  it('reads the policy blocks of upstream policies.hcl: query, level (advisory by default), description', async () => {
    // The layout of upstream's OPA tutorial repository, with one block left at the default level.
    const policies = await readOpaConfiguration(
      archive({
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
      }),
    );
    // hcl2json hands blocks out by name, not in file order.
    expect(policies).toEqual([
      {
        name: 'compute-001-aws-vm-size',
        query: 'data.terraform.policies.aws.compute_001.rule',
        enforcementLevel: 'advisory',
        description: 'Enforce preferred VM size',
      },
      {
        name: 'friday_deploys',
        query: 'data.terraform.policies.friday_deploys.deny',
        enforcementLevel: 'mandatory',
        description: '',
      },
      {
        name: 'public_ingress',
        query: 'data.terraform.policies.public_ingress.deny',
        enforcementLevel: 'advisory',
        description: '',
      },
    ]);
  });

  it("reads policies.json in HCL's JSON syntax: one body, a list of bodies, or a list of labelled blocks", async () => {
    const expected = [
      { name: 'a', query: 'data.t.a.deny', enforcementLevel: 'mandatory', description: '' },
      { name: 'b', query: 'data.t.b.deny', enforcementLevel: 'advisory', description: 'B' },
    ];
    const bodies = {
      policy: {
        a: { query: 'data.t.a.deny', enforcement_level: 'mandatory' },
        b: [{ query: 'data.t.b.deny', description: 'B' }],
      },
    };
    expect(await readOpaConfiguration(archive({ 'policies.json': JSON.stringify(bodies) }))).toEqual(
      expected,
    );
    const labelled = {
      policy: [
        { a: { query: 'data.t.a.deny', enforcement_level: 'mandatory' } },
        { b: { query: 'data.t.b.deny', description: 'B' } },
      ],
    };
    expect(await readOpaConfiguration(archive({ 'policies.json': JSON.stringify(labelled) }))).toEqual(
      expected,
    );
  });

  it('reads the file in the policies-path directory, and policies.hcl before policies.json', async () => {
    const files = {
      'policies.hcl': 'policy "root" { query = "data.root.deny" }',
      'prod/policies.hcl': 'policy "prod" { query = "data.prod.deny" }',
      'prod/policies.json': '{"policy": {"ignored": {"query": "data.x"}}}',
      'staging/policies.json': '{"policy": {"staging": {"query": "data.staging.deny"}}}',
    };
    const names = async (path: string) =>
      (await readOpaConfiguration(archive(files, path))).map((p) => p.name);
    expect(await names('')).toEqual(['root']);
    expect(await names('prod')).toEqual(['prod']);
    expect(await names('staging')).toEqual(['staging']);
  });

  it('refuses what cannot be evaluated, naming the file', async () => {
    const refusal = (files: Record<string, string>, path = '') => readOpaConfiguration(archive(files, path));
    await expect(refusal({ 'deny.rego': 'package x' }, 'prod')).rejects.toThrow(
      'its archive has no policies.hcl or policies.json in prod',
    );
    await expect(refusal({ 'policies.hcl': 'policy "a" {' })).rejects.toThrow(
      /policies.hcl is not valid HCL/,
    );
    await expect(refusal({ 'prod/policies.json': '{"policy": ' }, 'prod')).rejects.toThrow(
      /prod\/policies.json is not valid JSON/,
    );
    await expect(refusal({ 'policies.hcl': 'policy "a" { description = "x" }' })).rejects.toThrow(
      'policies.hcl: policy "a" has no query',
    );
    await expect(
      refusal({
        'policies.hcl': 'policy "a" {\n query = "data.a"\n enforcement_level = "hard-mandatory"\n}',
      }),
    ).rejects.toThrow('policy "a" has enforcement_level "hard-mandatory"; use "advisory" or "mandatory"');
    await expect(
      refusal({ 'policies.json': '{"policy": [{"a": {"query": "data.a"}}, {"a": {"query": "data.b"}}]}' }),
    ).rejects.toThrow('policy "a" is declared 2 times');
    await expect(refusal({ 'policies.hcl': '' })).rejects.toThrow('policies.hcl: declares no policy');
  });
});
