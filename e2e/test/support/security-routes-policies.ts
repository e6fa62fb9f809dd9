import {
  API,
  type AttributeKind,
  document,
  type Endpoint,
  identifiers,
  NO_BODY,
  org,
  PUBLIC,
  uploadToken,
} from './security-endpoint.js';
import type { OrgContext } from './security-world.js';

const POLICY_SET_ATTRIBUTES: Record<string, AttributeKind> = {
  name: 'string',
  description: 'string',
  global: 'boolean',
  kind: 'string',
  overridable: 'boolean',
  'agent-enabled': 'boolean',
  'policy-tool-version': 'string',
  'policies-path': 'string',
  'vcs-repo': 'object',
};
const POLICY_ATTRIBUTES: Record<string, AttributeKind> = {
  name: 'string',
  description: 'string',
  kind: 'string',
  query: 'string',
  'enforcement-level': 'string',
};
const PARAMETER_ATTRIBUTES: Record<string, AttributeKind> = {
  key: 'string',
  value: 'string',
  category: 'string',
  sensitive: 'boolean',
};
/** The five relationship endpoint pairs of a policy set: member type and how to make a member. */
const POLICY_SET_RELATIONSHIPS = [
  { path: 'policies', type: 'policies', member: (o: OrgContext) => o.fixtures.freshPolicy() },
  { path: 'projects', type: 'projects', member: (o: OrgContext) => o.fixtures.freshProject() },
  { path: 'workspaces', type: 'workspaces', member: (o: OrgContext) => o.fixtures.freshWorkspace() },
  {
    path: 'workspace-exclusions',
    type: 'workspaces',
    member: (o: OrgContext) => o.fixtures.freshWorkspace(),
  },
  { path: 'project-exclusions', type: 'projects', member: (o: OrgContext) => o.fixtures.freshProject() },
] as const;

const policySetRelationshipEndpoints: Endpoint[] = POLICY_SET_RELATIONSHIPS.flatMap(
  ({ path, type, member }) =>
    (['POST', 'DELETE'] as const).map(
      (method): Endpoint => ({
        method,
        path: `${API}/policy-sets/:id/relationships/${path}`,
        access: org('manage-policies'),
        success: 204,
        body: { shape: 'identifiers' },
        prepare: async (_w, o) => {
          const [set, m] = await Promise.all([o.fixtures.freshPolicySet(), member(o)]);
          return { params: { id: set.id }, body: identifiers(type, [m.id]) };
        },
      }),
    ),
);
/** Policies, policy sets with their relationships and versions, and the upload URL: manage-policies (the upload URL is its own credential). */
export const POLICY_ENDPOINTS: Endpoint[] = [
  // Policies: everything needs manage-policies.
  {
    method: 'POST',
    path: `${API}/organizations/:org/policies`,
    access: org('manage-policies'),
    success: 201,
    body: { shape: 'document', attributes: POLICY_ATTRIBUTES },
    prepare: async (_w, o) => ({
      params: { org: o.name },
      body: document('policies', { name: o.names('pol'), 'enforcement-level': 'advisory' }),
    }),
  },
  {
    method: 'GET',
    path: `${API}/organizations/:org/policies`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    query: { paginated: true, include: true },
    prepare: async (_w, o) => ({ params: { org: o.name } }),
  },
  {
    method: 'GET',
    path: `${API}/policies/:id`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    query: { include: true },
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedPolicy()).id } }),
  },
  {
    method: 'PATCH',
    path: `${API}/policies/:id`,
    access: org('manage-policies'),
    success: 200,
    body: { shape: 'document', attributes: POLICY_ATTRIBUTES },
    prepare: async (_w, o) => ({
      params: { id: (await o.fixtures.freshPolicy()).id },
      body: document('policies', { description: 'changed' }),
    }),
  },
  {
    method: 'DELETE',
    path: `${API}/policies/:id`,
    access: org('manage-policies'),
    success: 204,
    body: NO_BODY,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.freshPolicy()).id } }),
  },
  {
    method: 'PUT',
    path: `${API}/policies/:id/upload`,
    access: org('manage-policies'),
    success: 204,
    body: { shape: 'raw' },
    prepare: async (_w, o) => ({
      params: { id: (await o.fixtures.freshPolicy()).id },
      raw: Buffer.from('main = rule { true }\n'),
    }),
  },
  {
    method: 'GET',
    path: `${API}/policies/:id/download`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedPolicy()).id } }),
  },

  // Policy sets, their relationships and versions: manage-policies.
  {
    method: 'POST',
    path: `${API}/organizations/:org/policy-sets`,
    access: org('manage-policies'),
    success: 201,
    body: {
      shape: 'document',
      attributes: POLICY_SET_ATTRIBUTES,
      relationships: ['policies', 'workspaces', 'projects', 'workspace-exclusions'],
    },
    prepare: async (_w, o) => {
      const workspace = await o.fixtures.freshWorkspace();
      return {
        params: { org: o.name },
        body: document(
          'policy-sets',
          { name: o.names('set'), description: 'guardrails' },
          { workspaces: identifiers('workspaces', [workspace.id]) },
        ),
      };
    },
  },
  {
    method: 'GET',
    path: `${API}/organizations/:org/policy-sets`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    query: { paginated: true, include: true, strictFilters: ['filter[kind]', 'filter[versioned]'] },
    prepare: async (_w, o) => ({ params: { org: o.name } }),
  },
  {
    method: 'GET',
    path: `${API}/policy-sets/:id`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    query: { include: true },
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedPolicySet()).id } }),
  },
  {
    method: 'PATCH',
    path: `${API}/policy-sets/:id`,
    access: org('manage-policies'),
    success: 200,
    body: {
      shape: 'document',
      attributes: POLICY_SET_ATTRIBUTES,
      relationships: ['workspaces', 'projects', 'workspace-exclusions'],
    },
    prepare: async (_w, o) => ({
      params: { id: (await o.fixtures.freshPolicySet()).id },
      body: document('policy-sets', { description: 'changed' }),
    }),
  },
  {
    method: 'DELETE',
    path: `${API}/policy-sets/:id`,
    access: org('manage-policies'),
    success: 204,
    body: NO_BODY,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.freshPolicySet()).id } }),
  },
  ...policySetRelationshipEndpoints,
  // Policy set parameters: manage-policies.
  {
    method: 'POST',
    path: `${API}/policy-sets/:id/parameters`,
    access: org('manage-policies'),
    success: 201,
    body: { shape: 'document', attributes: PARAMETER_ATTRIBUTES },
    prepare: async (_w, o) => ({
      params: { id: (await o.fixtures.freshPolicySet()).id },
      body: document('vars', { key: o.names('param'), value: 'v', category: 'policy-set' }),
    }),
  },
  {
    method: 'GET',
    path: `${API}/policy-sets/:id/parameters`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    query: { paginated: true },
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedParameter()).setId } }),
  },
  {
    method: 'GET',
    path: `${API}/policy-sets/:id/parameters/:parameter_id`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    prepare: async (_w, o) => {
      const p = await o.fixtures.sharedParameter();
      return { params: { id: p.setId, parameter_id: p.id } };
    },
  },
  {
    method: 'PATCH',
    path: `${API}/policy-sets/:id/parameters/:parameter_id`,
    access: org('manage-policies'),
    success: 200,
    body: { shape: 'document', attributes: PARAMETER_ATTRIBUTES },
    prepare: async (_w, o) => {
      const p = await o.fixtures.freshParameter();
      return { params: { id: p.setId, parameter_id: p.id }, body: document('vars', { value: 'w' }) };
    },
  },
  {
    method: 'DELETE',
    path: `${API}/policy-sets/:id/parameters/:parameter_id`,
    access: org('manage-policies'),
    success: 204,
    body: NO_BODY,
    prepare: async (_w, o) => {
      const p = await o.fixtures.freshParameter();
      return { params: { id: p.setId, parameter_id: p.id } };
    },
  },
  {
    method: 'POST',
    path: `${API}/policy-sets/:id/versions`,
    access: org('manage-policies'),
    success: 201,
    // No body (today's clients), or a document asking for a staged version.
    body: { shape: 'optional-object', optional: true, attributes: { 'auto-promote': 'boolean' } },
    prepare: async (_w, o) => ({
      params: { id: (await o.fixtures.freshPolicySet()).id },
      body: document('policy-set-versions', { 'auto-promote': false }),
    }),
  },
  {
    method: 'GET',
    path: `${API}/policy-sets/:id/versions`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    query: { paginated: true, include: true, strictFilters: ['filter[status]'] },
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedVersion()).setId } }),
  },
  {
    method: 'POST',
    path: `${API}/policy-set-versions/:id/actions/promote`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.freshStagedVersion()).id } }),
  },
  {
    method: 'GET',
    path: `${API}/policy-set-versions/:id`,
    access: org('manage-policies'),
    success: 200,
    body: NO_BODY,
    query: { include: true },
    prepare: async (_w, o) => ({ params: { id: (await o.fixtures.sharedVersion()).id } }),
  },
  {
    method: 'PUT',
    path: `${API}/uploads/:token`,
    access: PUBLIC,
    success: 200,
    body: { shape: 'raw' },
    // A refused archive still spends the URL and errors the version, through an event (which
    // runs consumes too, for configuration versions).
    rejectionMayChange: [
      'policy_sets.policy_set_versions',
      'policy_sets.processed_events',
      'runs.processed_events',
      'storage.outbox',
      'storage.upload_sessions',
    ],
    prepare: async (_w, o) => {
      const version = await o.fixtures.freshVersion();
      return { params: { token: uploadToken(version.upload) }, raw: await o.fixtures.archive() };
    },
  },
];
