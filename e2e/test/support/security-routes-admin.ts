import {
  API,
  type AttributeKind,
  document,
  type Endpoint,
  identifiers,
  LIST,
  NO_BODY,
  SITE_ADMIN,
} from './security-endpoint.js';

const ADMIN_ORGANIZATION_ATTRIBUTES: Record<string, AttributeKind> = {
  'access-beta-tools': 'boolean',
  'global-module-sharing': 'boolean',
  'global-provider-sharing': 'boolean',
  'is-disabled': 'boolean',
  'apply-timeout': 'string',
  'plan-timeout': 'string',
  'engine-build-worker-apply-timeout': 'string',
  'engine-build-worker-plan-timeout': 'string',
  'workspace-limit': 'integer',
};

/** Site administration: site admins only; everyone else gets 404. */
export const ADMIN_ENDPOINTS: Endpoint[] = [
  {
    // Every organization's audit trail (docs/api/audit-trail.md).
    method: 'GET',
    path: `${API}/admin/audit-trail`,
    access: SITE_ADMIN,
    success: 200,
    body: NO_BODY,
    prepare: async (_w, o) => ({
      params: {},
      query: `filter%5Borganization%5D%5Bname%5D=${encodeURIComponent(o.name)}`,
    }),
  },
  {
    method: 'GET',
    path: `${API}/admin/organizations`,
    access: SITE_ADMIN,
    success: 200,
    body: NO_BODY,
    query: {
      paginated: true,
      include: true,
      strictFilters: ['filter[module_producer]', 'filter[provider_producer]'],
    },
    prepare: async () => ({ params: {} }),
  },
  {
    method: 'GET',
    path: `${API}/admin/organizations/:name`,
    access: SITE_ADMIN,
    success: 200,
    body: NO_BODY,
    query: { include: true },
    prepare: async (_w, o) => ({ params: { name: o.name } }),
  },
  {
    method: 'PATCH',
    path: `${API}/admin/organizations/:name`,
    access: SITE_ADMIN,
    success: 200,
    body: { shape: 'document', attributes: ADMIN_ORGANIZATION_ATTRIBUTES, emptyTypeAllowed: true },
    prepare: async (_w, o) => ({
      params: { name: o.name },
      body: document('organizations', { 'access-beta-tools': true, 'apply-timeout': '12h' }),
    }),
  },
  {
    method: 'DELETE',
    path: `${API}/admin/organizations/:name`,
    access: SITE_ADMIN,
    success: 204,
    body: NO_BODY,
    prepare: async (w) => ({ params: { name: (await w.freshOrg()).name } }),
  },
  {
    method: 'GET',
    path: `${API}/admin/organizations/:name/relationships/module-consumers`,
    access: SITE_ADMIN,
    success: 200,
    body: NO_BODY,
    query: LIST,
    prepare: async (_w, o) => ({ params: { name: o.name } }),
  },
  {
    method: 'GET',
    path: `${API}/admin/organizations/:name/relationships/provider-consumers`,
    access: SITE_ADMIN,
    success: 200,
    body: NO_BODY,
    query: LIST,
    prepare: async (_w, o) => ({ params: { name: o.name } }),
  },
  {
    method: 'PATCH',
    path: `${API}/admin/organizations/:name/relationships/module-consumers`,
    access: SITE_ADMIN,
    success: 204,
    body: { shape: 'identifiers' },
    prepare: async (w, o) => ({
      params: { name: o.name },
      body: identifiers('organizations', [w.orgB.name]),
    }),
  },
  {
    method: 'PUT',
    path: `${API}/admin/organizations/:name/registry-partnerships`,
    access: SITE_ADMIN,
    success: 204,
    body: {
      shape: 'document',
      attributes: { 'module-consumers': 'string-list', 'provider-consumers': 'string-list' },
    },
    prepare: async (w, o) => ({
      params: { name: o.name },
      body: document('registry-partnerships', { 'provider-consumers': [w.orgB.name] }),
    }),
  },
];
