import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readOpaConfiguration } from '../src/engines/opa/policy-configuration.js';
import { readSentinelConfiguration } from '../src/engines/sentinel/configuration.js';
import { tfplanV2 } from '../src/engines/sentinel/mock-data.js';

const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));

describe('examples/', () => {
  it('the Sentinel set declares three policies at three levels, each a file of the set', async () => {
    const { policies } = await readSentinelConfiguration(`${examples}sentinel`, 'sentinel.hcl');
    expect(policies.map((p) => [p.name, p.enforcementLevel]).sort()).toEqual([
      ['allowed-instance-types', 'advisory'],
      ['require-owner-tag', 'soft-mandatory'],
      ['restrict-public-buckets', 'hard-mandatory'],
    ]);
    for (const p of policies)
      expect(readFileSync(`${examples}sentinel/${p.source.replace('./', '')}`, 'utf8')).toContain(
        'main = rule',
      );
  });

  it('the plan gives the tfplan/v2 data the policies read', () => {
    const data = tfplanV2(JSON.parse(readFileSync(`${examples}plans/soft-fail.json`, 'utf8')));
    const rc = data.resource_changes as Record<
      string,
      { change: { after: { tags?: Record<string, string> } } }
    >;
    expect(Object.keys(rc)).toEqual(['aws_instance.web', 'aws_s3_bucket_acl.logs']);
    expect(rc['aws_instance.web']!.change.after.tags).not.toHaveProperty('owner');
  });

  it('the OPA set declares three policies, each query answered by a package of its Rego files', async () => {
    const dir = `${examples}opa`;
    const policies = await readOpaConfiguration({ file: '', dir, policiesPath: '' });
    expect(policies.map((p) => [p.name, p.enforcementLevel]).sort()).toEqual([
      ['allowed_instance_types', 'advisory'],
      ['require_owner_tag', 'mandatory'],
      ['restrict_public_buckets', 'mandatory'],
    ]);
    const packages = readdirSync(`${dir}/policies`).map(
      (f) => /^package (\S+)/m.exec(readFileSync(`${dir}/policies/${f}`, 'utf8'))![1],
    );
    for (const p of policies)
      expect(packages).toContain(p.query.replace(/^data\./, '').replace(/\.deny$/, ''));
  });
});
