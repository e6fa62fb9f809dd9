import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationDoc } from '../src/config-docs.js';

describe('docs/configuration.md', () => {
  it('is what the configuration shapes generate (run `npm run docs:config` after changing one)', () => {
    const committed = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(committed).toBe(configurationDoc());
  });
});
