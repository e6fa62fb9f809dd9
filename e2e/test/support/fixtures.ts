import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { ApiClient } from './api.js';
import type { TestSystem } from './system.js';

/** What the fixtures need of a running system (in-process or multi-process harness). */
export type SystemApi = Pick<TestSystem, 'admin' | 'client'>;

export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export interface TestUser {
  id: string;
  username: string;
  token: string;
  api: ApiClient;
}

/** Creates a user (as site admin) and a token for it. */
export async function createUser(t: SystemApi, prefix = 'user'): Promise<TestUser> {
  const username = uniqueName(prefix);
  const res = await t.admin.post('/admin/users', {
    data: { type: 'users', attributes: { username, email: `${username}@example.com` } },
  });
  expect(res.status, res.text).toBe(201);
  const id = res.body.data.id as string;
  const tok = await t.admin.post(`/users/${id}/authentication-tokens`, {
    data: { type: 'authentication-tokens' },
  });
  expect(tok.status, tok.text).toBe(201);
  const token = tok.body.data.attributes.token as string;
  return { id, username, token, api: t.client(token) };
}

/** An organization created by a fresh user, who is therefore its owner. */
export async function createOrganization(t: SystemApi, prefix = 'org', name = uniqueName(prefix)) {
  const owner = await createUser(t, `${prefix}-owner`);
  const res = await owner.api.post('/organizations', {
    data: { type: 'organizations', attributes: { name, email: `ops@${name}.example` } },
  });
  expect(res.status, res.text).toBe(201);
  return { name, owner };
}

/** A member of `org` whose team grants exactly `permissions`. */
export async function createMember(
  t: SystemApi,
  org: { name: string; owner: TestUser },
  permissions: string[],
  teamName = uniqueName('team'),
) {
  const user = await createUser(t, 'member');
  const team = await org.owner.api.post(`/organizations/${org.name}/teams`, {
    data: {
      type: 'teams',
      attributes: {
        name: teamName,
        'organization-access': Object.fromEntries(permissions.map((p) => [p, true])),
      },
    },
  });
  expect(team.status, team.text).toBe(201);
  const add = await org.owner.api.post(`/teams/${team.body.data.id}/relationships/users`, {
    data: [{ type: 'users', id: user.id }],
  });
  expect(add.status, add.text).toBe(204);
  return user;
}

export async function createWorkspace(
  api: ApiClient,
  org: string,
  attrs: Record<string, unknown> = {},
  projectId?: string,
) {
  const res = await api.post(`/organizations/${org}/workspaces`, {
    data: {
      type: 'workspaces',
      attributes: { name: uniqueName('ws'), ...attrs },
      ...(projectId ? { relationships: { project: { data: { type: 'projects', id: projectId } } } } : {}),
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; attributes: { name: string; 'created-at': string } };
}

export async function createProject(api: ApiClient, org: string, name = uniqueName('prj')) {
  const res = await api.post(`/organizations/${org}/projects`, {
    data: { type: 'projects', attributes: { name } },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string };
}

/** A policy in `org` (kind_a and soft-mandatory unless `attrs` say otherwise). */
export async function createPolicy(api: ApiClient, org: string, attrs: Record<string, unknown> = {}) {
  // kind_b policies need a query (upstream's rule); tests that do not care get this one.
  const kindB = attrs.kind === 'kind_b' || attrs.kind === 'opa';
  const query = kindB && !('query' in attrs) ? { query: 'data.terraform.deny' } : {};
  const res = await api.post(`/organizations/${org}/policies`, {
    data: { type: 'policies', attributes: { name: uniqueName('pol'), ...query, ...attrs } },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as {
    id: string;
    attributes: Record<string, unknown>;
    relationships: Record<string, unknown>;
  };
}

/** A policy set in `org`; `relationships` maps a relationship name to the ids of its members. */
export async function createPolicySet(
  api: ApiClient,
  org: string,
  attrs: Record<string, unknown> = {},
  relationships: Partial<
    Record<'policies' | 'workspaces' | 'projects' | 'workspace-exclusions', string[]>
  > = {},
) {
  const typeOf = {
    policies: 'policies',
    workspaces: 'workspaces',
    projects: 'projects',
    'workspace-exclusions': 'workspaces',
  };
  const res = await api.post(`/organizations/${org}/policy-sets`, {
    data: {
      type: 'policy-sets',
      attributes: { name: uniqueName('set'), ...attrs },
      relationships: Object.fromEntries(
        Object.entries(relationships).map(([k, ids]) => [
          k,
          { data: ids.map((id) => ({ type: typeOf[k as keyof typeof typeOf], id })) },
        ]),
      ),
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as {
    id: string;
    attributes: Record<string, unknown>;
    relationships: Record<string, unknown>;
  };
}
