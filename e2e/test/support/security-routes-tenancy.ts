import { uniqueName } from './fixtures.js';
import {
  API,
  AUTHENTICATED,
  document,
  type Endpoint,
  identifiers,
  LIST,
  NO_BODY,
  SHOW,
  org,
  PUBLIC,
  SITE_ADMIN,
} from './security-endpoint.js';

/** Operations, users and tokens, organizations, teams, projects and workspaces. */
export const TENANCY_ENDPOINTS: Endpoint[] = [
  // The client handshake. (Health, readiness and metrics are on the ops listener, not this port.)
  {
    // Terraform's service discovery, at the root in every vocabulary profile.
    method: 'GET',
    path: '/.well-known/terraform.json',
    access: PUBLIC,
    success: 200,
    body: NO_BODY,
    prepare: async () => ({ params: {} }),
  },
  {
    method: 'GET',
    path: `${API}/ping`,
    access: PUBLIC,
    success: 204,
    body: NO_BODY,
    prepare: async () => ({ params: {} }),
  },
  {
    // The OpenAPI 3.1 document of every route (docs/adr/0029-openapi-document.md).
    method: 'GET',
    path: `${API}/openapi.json`,
    access: PUBLIC,
    success: 200,
    body: NO_BODY,
    prepare: async () => ({ params: {} }),
  },

  // Users and tokens.
  {
    method: 'POST',
    path: `${API}/admin/users`,
    access: SITE_ADMIN,
    success: 201,
    body: {
      shape: 'document',
      attributes: { username: 'string', email: 'string', 'is-site-admin': 'boolean' },
    },
    prepare: async () => {
      const username = uniqueName('u');
      return { params: {}, body: document('users', { username, email: `${username}@example.com` }) };
    },
  },
  {
    method: 'GET',
    path: `${API}/admin/users`,
    access: SITE_ADMIN,
    success: 200,
    body: NO_BODY,
    query: { ...LIST, strictFilters: ['filter[admin]'] },
    prepare: async () => ({ params: {} }),
  },
  {
    method: 'DELETE',
    path: `${API}/admin/users/:id`,
    access: SITE_ADMIN,
    success: 204,
    body: NO_BODY,
    prepare: async (w) => ({ params: { id: (await w.freshUser()).id } }),
  },
  {
    method: 'POST',
    path: `${API}/users/:id/authentication-tokens`,
    access: { kind: 'self' },
    success: 201,
    body: {
      shape: 'document',
      attributes: { description: 'string' },
      emptyTypeAllowed: true,
      optional: true,
    },
    prepare: async (w) => {
      const self = await w.freshUser();
      return {
        params: { id: self.id },
        self,
        body: document('authentication-tokens', { description: 'ci' }),
      };
    },
  },
  {
    method: 'GET',
    path: `${API}/users/:id/authentication-tokens`,
    access: { kind: 'self' },
    success: 200,
    body: NO_BODY,
    query: LIST,
    prepare: async (w) => {
      const self = await w.freshUser();
      return { params: { id: self.id }, self };
    },
  },
  ...(['GET', 'DELETE'] as const).map(
    (method): Endpoint => ({
      method,
      path: `${API}/authentication-tokens/:id`,
      access: { kind: 'self' },
      success: method === 'GET' ? 200 : 204,
      body: NO_BODY,
      ...(method === 'GET' ? { query: SHOW } : {}),
      // A second token of a fresh user: the user keeps the one it calls with.
      prepare: async (w) => {
        const self = await w.freshUser();
        const res = await self.api.post(`/users/${self.id}/authentication-tokens`, {
          data: { type: 'authentication-tokens', attributes: { description: 'second' } },
        });
        if (res.status !== 201) throw new Error(`token creation failed: ${res.status} ${res.text}`);
        return { params: { id: res.body.data.id as string }, self };
      },
    }),
  ),
  {
    method: 'GET',
    path: `${API}/account/details`,
    access: AUTHENTICATED,
    success: 200,
    body: NO_BODY,
    prepare: async () => ({ params: {} }),
  },

  // Organizations and teams.
  {
    method: 'POST',
    path: `${API}/organizations`,
    access: AUTHENTICATED,
    success: 201,
    body: { shape: 'document', attributes: { name: 'string', email: 'string' } },
    prepare: async () => {
      const name = uniqueName('org');
      return { params: {}, body: document('organizations', { name, email: `ops@${name}.example` }) };
    },
  },
  {
    method: 'GET',
    path: `${API}/organizations`,
    access: AUTHENTICATED,
    success: 200,
    body: NO_BODY,
    query: LIST,
    prepare: async () => ({ params: {} }),
  },
  {
    method: 'GET',
    path: `${API}/organizations/:name`,
    access: org('member'),
    success: 200,
    body: NO_BODY,
    query: SHOW,
    prepare: async (_w, o) => ({ params: { name: o.name } }),
  },
  {
    // The organization's audit trail: its owners (docs/api/audit-trail.md).
    method: 'GET',
    path: `${API}/organization/audit-trail`,
    access: org('owner'),
    success: 200,
    body: NO_BODY,
    prepare: async (_w, o) => ({
      params: {},
      query: `filter%5Borganization%5D%5Bname%5D=${encodeURIComponent(o.name)}`,
    }),
  },
  {
    method: 'PATCH',
    path: `${API}/organizations/:name`,
    access: org('owner'),
    success: 200,
    body: { shape: 'document', attributes: { name: 'string', email: 'string' } },
    prepare: async (_w, o) => ({
      params: { name: o.name },
      body: document('organizations', { email: `security@${o.name}.example` }),
    }),
  },
  {
    method: 'DELETE',
    path: `${API}/organizations/:name`,
    access: org('owner'),
    success: 204,
    body: NO_BODY,
    prepare: async (w) => {
      const fresh = await w.freshOrg();
      return { params: { name: fresh.name }, org: fresh };
    },
  },
  {
    method: 'POST',
    path: `${API}/organizations/:org/teams`,
    access: org('owner'),
    success: 201,
    body: { shape: 'document', attributes: { name: 'string', 'organization-access': 'object' } },
    prepare: async (_w, o) => ({
      params: { org: o.name },
      body: document('teams', { name: o.names('team'), 'organization-access': { 'read-runs': true } }),
    }),
  },
  {
    method: 'GET',
    path: `${API}/organizations/:org/teams`,
    access: org('member'),
    success: 200,
    body: NO_BODY,
    query: LIST,
    prepare: async (_w, o) => ({ params: { org: o.name } }),
  },
  {
    method: 'GET',
    path: `${API}/teams/:id`,
    access: org('member'),
    success: 200,
    body: NO_BODY,
    query: SHOW,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedTeam()).id } }),
  },
  {
    method: 'DELETE',
    path: `${API}/teams/:id`,
    access: org('owner'),
    success: 204,
    body: NO_BODY,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.freshTeam()).id } }),
  },
  ...(['POST', 'DELETE'] as const).map(
    (method): Endpoint => ({
      method,
      path: `${API}/teams/:id/relationships/users`,
      access: org('owner'),
      success: 204,
      body: { shape: 'identifiers' },
      prepare: async (w, o) => {
        const [team, user] = await Promise.all([o.fixtures.freshTeam(), w.freshUser()]);
        return { params: { id: team.id }, body: identifiers('users', [user.id]) };
      },
    }),
  ),

  // Team and organization tokens: the organization's owners (and a team's own members, who are
  // never among the callers here: the team is made fresh).
  ...(['POST', 'GET', 'DELETE'] as const).map(
    (method): Endpoint => ({
      method,
      path: `${API}/teams/:id/authentication-token`,
      access: org('owner'),
      success: method === 'POST' ? 201 : method === 'GET' ? 200 : 204,
      body:
        method === 'POST'
          ? {
              shape: 'document',
              attributes: { description: 'string', 'expired-at': 'string' },
              emptyTypeAllowed: true,
              optional: true,
            }
          : NO_BODY,
      prepare: async (_w, o) => {
        const team = await o.fixtures.freshTeam();
        if (method !== 'POST') {
          const res = await o.owner.api.post(`/teams/${team.id}/authentication-token`);
          if (res.status !== 201) throw new Error(`team token creation failed: ${res.status} ${res.text}`);
        }
        return {
          params: { id: team.id },
          ...(method === 'POST' ? { body: document('authentication-tokens', { description: 'ci' }) } : {}),
        };
      },
    }),
  ),
  ...(['POST', 'GET', 'DELETE'] as const).map(
    (method): Endpoint => ({
      method,
      path: `${API}/organizations/:org/authentication-token`,
      access: org('owner'),
      success: method === 'POST' ? 201 : method === 'GET' ? 200 : 204,
      body:
        method === 'POST'
          ? {
              shape: 'document',
              attributes: { description: 'string', 'expired-at': 'string' },
              emptyTypeAllowed: true,
              optional: true,
            }
          : NO_BODY,
      prepare: async (_w, o) => {
        if (method !== 'POST') {
          const res = await o.owner.api.post(`/organizations/${o.name}/authentication-token`);
          if (res.status !== 201)
            throw new Error(`organization token creation failed: ${res.status} ${res.text}`);
        }
        return {
          params: { org: o.name },
          ...(method === 'POST' ? { body: document('authentication-tokens', { description: 'ci' }) } : {}),
        };
      },
    }),
  ),

  // Projects and workspaces: any member reads, the manage-* permission changes.
  {
    method: 'POST',
    path: `${API}/organizations/:org/projects`,
    access: org('manage-projects'),
    success: 201,
    body: { shape: 'document', attributes: { name: 'string', description: 'string' } },
    prepare: async (_w, o) => ({
      params: { org: o.name },
      body: document('projects', { name: o.names('prj') }),
    }),
  },
  {
    method: 'GET',
    path: `${API}/organizations/:org/projects`,
    access: org('member'),
    success: 200,
    body: NO_BODY,
    query: LIST,
    prepare: async (_w, o) => ({ params: { org: o.name } }),
  },
  {
    method: 'GET',
    path: `${API}/projects/:id`,
    access: org('member'),
    success: 200,
    body: NO_BODY,
    query: SHOW,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedProject()).id } }),
  },
  {
    method: 'PATCH',
    path: `${API}/projects/:id`,
    access: org('manage-projects'),
    success: 200,
    body: { shape: 'document', attributes: { name: 'string', description: 'string' } },
    prepare: async (_w, o) => ({
      params: { id: (await o.fixtures.freshProject()).id },
      body: document('projects', { description: 'changed' }),
    }),
  },
  {
    method: 'DELETE',
    path: `${API}/projects/:id`,
    access: org('manage-projects'),
    success: 204,
    body: NO_BODY,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.freshProject()).id } }),
  },
  {
    method: 'POST',
    path: `${API}/organizations/:org/workspaces`,
    access: org('manage-workspaces'),
    success: 201,
    body: { shape: 'document', attributes: { name: 'string', description: 'string' } },
    prepare: async (_w, o) => ({
      params: { org: o.name },
      body: document('workspaces', { name: o.names('ws') }),
    }),
  },
  {
    method: 'GET',
    path: `${API}/organizations/:org/workspaces`,
    access: org('member'),
    success: 200,
    body: NO_BODY,
    query: LIST,
    prepare: async (_w, o) => ({ params: { org: o.name } }),
  },
  {
    method: 'GET',
    path: `${API}/workspaces/:id`,
    access: org('member'),
    success: 200,
    body: NO_BODY,
    query: SHOW,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedWorkspace()).id } }),
  },
  {
    method: 'PATCH',
    path: `${API}/workspaces/:id`,
    access: org('manage-workspaces'),
    success: 200,
    body: { shape: 'document', attributes: { name: 'string', description: 'string' } },
    prepare: async (_w, o) => ({
      params: { id: (await o.fixtures.freshWorkspace()).id },
      body: document('workspaces', { description: 'changed' }),
    }),
  },
  {
    method: 'DELETE',
    path: `${API}/workspaces/:id`,
    access: org('manage-workspaces'),
    success: 204,
    body: NO_BODY,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.freshWorkspace()).id } }),
  },
  {
    method: 'GET',
    path: `${API}/organizations/:org/workspaces/:name`,
    access: org('member'),
    success: 200,
    body: NO_BODY,
    query: SHOW,
    prepare: async (_w, o) => ({
      params: { org: o.name, name: (await o.fixtures.sharedWorkspace()).attributes.name },
    }),
  },
  {
    method: 'PATCH',
    path: `${API}/organizations/:org/workspaces/:name`,
    access: org('manage-workspaces'),
    success: 200,
    body: { shape: 'document', attributes: { name: 'string', description: 'string' } },
    prepare: async (_w, o) => ({
      params: { org: o.name, name: (await o.fixtures.freshWorkspace()).attributes.name },
      body: document('workspaces', { description: 'changed' }),
    }),
  },
  {
    method: 'DELETE',
    path: `${API}/organizations/:org/workspaces/:name`,
    access: org('manage-workspaces'),
    success: 204,
    body: NO_BODY,
    prepare: async (_w, o) => ({
      params: { org: o.name, name: (await o.fixtures.freshWorkspace()).attributes.name },
    }),
  },
  {
    method: 'GET',
    path: `${API}/workspaces/:id/runs`,
    access: org('read-runs'),
    success: 200,
    body: NO_BODY,
    query: { paginated: true, include: true },
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedWorkspace()).id } }),
  },
];
