import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createWorkspace } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * What the gateway writes into links of its own: pagination links carry only the parameters the
 * route understands. (docs/security.md, "The edge")
 */
let t: TestSystem;
beforeAll(async () => {
  t = await startTestSystem();
});
afterAll(async () => {
  await t?.stop();
});

describe('pagination links', () => {
  it('carry the parameters the route understands and none that it does not', async () => {
    const { name: org, owner } = await createOrganization(t, 'links');
    for (const name of ['web-a', 'web-b', 'web-c']) await createWorkspace(owner.api, org, { name });
    const pasted = 'x'.repeat(2000);
    const res = await owner.api.get(
      `/organizations/${org}/workspaces?search%5Bname%5D=web&page%5Bsize%5D=1&utm_source=${pasted}&filter%5Bnope%5D=1`,
    );
    expect(res.status, res.text).toBe(200);
    const links = res.body.links as Record<string, string | null>;
    for (const link of Object.values(links)) {
      if (link === null) continue;
      expect(link).not.toContain('utm_source');
      expect(link).not.toContain('nope');
      expect(link).toContain('search%5Bname%5D=web');
      expect(link).toContain('page%5Bsize%5D=1');
    }
    // The links still lead somewhere useful.
    const next = await owner.api.get(links.next!);
    expect(next.status, next.text).toBe(200);
    expect(next.body.meta.pagination['current-page']).toBe(2);
  });
});
