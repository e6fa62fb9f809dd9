import { expect } from 'vitest';
import type { ApiClient } from './api.js';
import type { TestSystem } from './system.js';

/** Creates an organization as `api`'s user (who becomes its owner) with a chosen email. */
export async function createOrganizationAs(api: ApiClient, name: string, email = `ops@${name}.example`) {
  const res = await api.post('/organizations', {
    data: { type: 'organizations', attributes: { name, email } },
  });
  expect(res.status, res.text).toBe(201);
  return name;
}

/** PATCH /admin/organizations/:name as the site admin, the way the Go client sends it (`type: ""`). */
export function adminUpdate(t: TestSystem, name: string, attributes: Record<string, unknown>) {
  return t.admin.patch(`/admin/organizations/${name}`, { data: { type: '', attributes } });
}

/** Ids of a list response's `data`. */
export const idsOf = (body: { data: Array<{ id: string }> }): string[] => body.data.map((r) => r.id);
