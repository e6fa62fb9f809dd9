import { describe, expect, it } from 'vitest';
import { parseSentinelConfig } from './sentinel-archive.js';
import { sentinelPolicies } from '../domain/sentinel-config.js';

describe('sentinel.hcl policy blocks', () => {
  it('reads names, sources and levels (advisory by default)', async () => {
    const parsed = await parseSentinelConfig(`
      module "tfplan-functions" { source = "./modules/tfplan-functions.sentinel" }
      policy "restrict-s3" {
        source            = "./policies/restrict-s3.sentinel"
        enforcement_level = "hard-mandatory"
      }
      policy "tags" {}
      param "regions" { value = ["eu-west-1"] }
    `);
    expect(sentinelPolicies(parsed)).toEqual([
      { name: 'restrict-s3', source: './policies/restrict-s3.sentinel', enforcementLevel: 'hard-mandatory' },
      { name: 'tags', source: '', enforcementLevel: 'advisory' },
    ]);
  });

  it('refuses what Sentinel would refuse', async () => {
    await expect(parseSentinelConfig('policy "a" {')).rejects.toThrow(/not valid HCL/);
    expect(() => sentinelPolicies({ policy: { a: [{ enforcement_level: 'mandatory' }] } })).toThrow(
      /enforcement_level "mandatory"/,
    );
    expect(() => sentinelPolicies({ policy: { a: [{}, {}] } })).toThrow(/declared 2 times/);
    expect(sentinelPolicies({})).toEqual([]);
  });
});
