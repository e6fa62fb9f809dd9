import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sentinelPolicies } from '../domain/sentinel-config.js';
import { parseSentinelConfig } from './sentinel-archive.js';

const example = (path: string) =>
  readFileSync(new URL(`../../../../examples/${path}`, import.meta.url), 'utf8');

describe('examples/', () => {
  it('the Sentinel set declares three policies at three levels', async () => {
    const policies = sentinelPolicies(await parseSentinelConfig(example('sentinel/sentinel.hcl')));
    expect(policies.map((p) => [p.name, p.enforcementLevel]).sort()).toEqual([
      ['allowed-instance-types', 'advisory'],
      ['require-owner-tag', 'soft-mandatory'],
      ['restrict-public-buckets', 'hard-mandatory'],
    ]);
    for (const p of policies)
      expect(example(`sentinel/${p.source.replace('./', '')}`)).toContain('main = rule');
  });
});
