import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSentinelConfiguration } from './configuration.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function setDir(config?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-config-'));
  dirs.push(dir);
  if (config !== undefined) writeFileSync(join(dir, 'sentinel.hcl'), config);
  return dir;
}

describe('sentinel.hcl', () => {
  it('reads policy names, sources and levels (advisory by default) and keeps every block', async () => {
    const { blocks, policies } = await readSentinelConfiguration(
      setDir(`
        module "tfplan-functions" { source = "./modules/tfplan-functions.sentinel" }
        policy "restrict-s3" {
          source            = "./policies/restrict-s3.sentinel"
          enforcement_level = "hard-mandatory"
        }
        policy "tags" {}
        param "regions" { value = ["eu-west-1"] }
      `),
      'sentinel.hcl',
    );
    expect(policies).toEqual([
      { name: 'restrict-s3', source: './policies/restrict-s3.sentinel', enforcementLevel: 'hard-mandatory' },
      { name: 'tags', source: '', enforcementLevel: 'advisory' },
    ]);
    expect(Object.keys(blocks).sort()).toEqual(['module', 'param', 'policy']);
  });

  it('refuses what Sentinel would refuse, naming the file', async () => {
    await expect(readSentinelConfiguration(setDir(), 'prod/sentinel.hcl')).rejects.toThrow(
      'its archive has no prod/sentinel.hcl',
    );
    await expect(readSentinelConfiguration(setDir('policy "a" {'), 'sentinel.hcl')).rejects.toThrow(
      /sentinel.hcl is not valid HCL/,
    );
    await expect(
      readSentinelConfiguration(setDir('policy "a" { enforcement_level = "mandatory" }'), 'sentinel.hcl'),
    ).rejects.toThrow(/policy "a" has enforcement_level "mandatory"/);
    await expect(
      readSentinelConfiguration(setDir('policy "a" {}\npolicy "a" {}'), 'sentinel.hcl'),
    ).rejects.toThrow(/policy "a" is declared 2 times/);
  });
});
