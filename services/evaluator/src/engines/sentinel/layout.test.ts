import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ARCHIVE_CONFIG_FILE, layOutArchive } from './layout.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
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
      { 'tfplan/v2': '/work/mock-tfplan.sentinel', tfrun: '/work/mock-tfrun.sentinel' },
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
        'tfplan/v2': [{ module: [{ source: '/work/mock-tfplan.sentinel' }] }],
        tfrun: [{ module: [{ source: '/work/mock-tfrun.sentinel' }] }],
      },
      // The set's parameters override params of the same name.
      param: { region: [{ value: 'us' }], other: [{ value: 'kept' }] },
    });
  });
});
