import { AppError, type ErrorItem } from '@policyhub/errors';
import { createLogger } from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Clients } from '../src/clients/index.js';
import { RequestDocument, readIdentifierList } from '../src/jsonapi/body.js';
import {
  readAdminOrganizationUpdate,
  readRegistryPartnerships,
} from '../src/resources/admin-organizations/request-bodies.js';
import { readPolicyAttributes } from '../src/resources/policies/body.js';
import { readPolicySetBody } from '../src/resources/policy-sets/body.js';
import { validatorCompiler } from '../src/schemas/validation.js';

/**
 * The route schemas validate bodies (ADR 0028) and the readers only read values and apply the
 * rules a schema cannot state (ADR 0031): for a battery of malformed documents, each body route
 * answers exactly the 422 (details and pointers, in order) the hand-written readers answered when
 * they checked everything (the snapshot). No backend is involved: only schemas and readers run.
 */
let app: FastifyInstance;
beforeAll(async () => {
  app = await buildApp({ clients: {} as Clients, logger: createLogger('gateway-test', 'silent') });
  await app.ready();
});
afterAll(() => app.close());

type Reader = (body: unknown) => unknown;

/** Routes whose reader only reads values: every refusal is the schema's. */
const readsOnly: Reader = (body) => new RequestDocument(body);

interface Case {
  method: string;
  url: string;
  type: string;
  read: Reader;
  attributes: string[];
  relationships?: Record<string, string>;
}

const CASES: Case[] = [
  {
    method: 'POST',
    url: '/api/v2/organizations/:org/projects',
    type: 'projects',
    read: readsOnly,
    attributes: ['name', 'description'],
  },
  {
    method: 'PATCH',
    url: '/api/v2/workspaces/:id',
    type: 'workspaces',
    read: readsOnly,
    attributes: ['name', 'description'],
    relationships: { project: 'projects' },
  },
  {
    method: 'POST',
    url: '/api/v2/runs',
    type: 'runs',
    read: readsOnly,
    attributes: ['message', 'plan-only'],
    relationships: { workspace: 'workspaces', 'configuration-version': 'configuration-versions' },
  },
  {
    method: 'POST',
    url: '/api/v2/workspaces/:id/configuration-versions',
    type: 'configuration-versions',
    read: readsOnly,
    attributes: ['auto-queue-runs', 'speculative', 'provisional'],
  },
  {
    method: 'POST',
    url: '/api/v2/organizations/:org/policy-sets',
    type: 'policy-sets',
    read: (body) => readPolicySetBody(new RequestDocument(body)),
    attributes: [
      'name',
      'description',
      'global',
      'kind',
      'overridable',
      'agent-enabled',
      'policy-tool-version',
      'policies-path',
      'vcs-repo',
    ],
    relationships: {
      policies: 'policies',
      workspaces: 'workspaces',
      projects: 'projects',
      'workspace-exclusions': 'workspaces',
    },
  },
  {
    method: 'PATCH',
    url: '/api/v2/policy-sets/:id',
    type: 'policy-sets',
    read: (body) => readPolicySetBody(new RequestDocument(body)),
    attributes: [
      'name',
      'description',
      'global',
      'kind',
      'overridable',
      'agent-enabled',
      'policy-tool-version',
      'policies-path',
      'vcs-repo',
    ],
    relationships: { policies: 'policies', 'workspace-exclusions': 'workspaces' },
  },
  {
    method: 'POST',
    url: '/api/v2/organizations/:org/policies',
    type: 'policies',
    read: (body) => readPolicyAttributes(new RequestDocument(body)),
    attributes: ['name', 'description', 'kind', 'query', 'enforcement-level', 'enforce'],
  },
  {
    method: 'PATCH',
    url: '/api/v2/admin/organizations/:name',
    type: 'organizations',
    read: (body) => readAdminOrganizationUpdate(body, 'org'),
    attributes: [
      'access-beta-tools',
      'is-disabled',
      'apply-timeout',
      'terraform-build-worker-plan-timeout',
      'workspace-limit',
    ],
  },
  {
    method: 'PUT',
    url: '/api/v2/admin/organizations/:name/registry-partnerships',
    type: 'registry-partnerships',
    read: (body) => readRegistryPartnerships(body, 'org'),
    attributes: ['module-consumers', 'provider_consumers'],
  },
  {
    method: 'POST',
    url: '/api/v2/organizations/:org/teams',
    type: 'teams',
    read: readsOnly,
    attributes: ['name', 'organization-access'],
  },
  {
    method: 'POST',
    url: '/api/v2/admin/users',
    type: 'users',
    read: readsOnly,
    attributes: ['username', 'email', 'is-site-admin'],
  },
];

const VALUES: unknown[] = [
  null,
  '',
  5,
  1.5,
  -1,
  true,
  'x',
  'x'.repeat(300),
  'y'.repeat(70_000),
  [],
  ['a', 5],
  {},
];

const ENVELOPES = (type: string): unknown[] => [
  undefined,
  null,
  5,
  'x',
  [],
  {},
  { data: null },
  { data: [] },
  { data: 5 },
  { data: {} },
  { data: { type: 'wrong' } },
  { data: { type: null } },
  { data: { type: '' } },
  { data: { type } },
  { data: { type, attributes: 5 } },
  { data: { type, attributes: [] } },
  { data: { type, attributes: null } },
  { data: { type, relationships: 'x' } },
  { data: { type: 'wrong', attributes: 5, relationships: 5 } },
  { data: { type, attributes: 5, relationships: 5 } },
];

const RELATIONSHIP_VALUES = (type: string): unknown[] => [
  5,
  {},
  { data: 5 },
  { data: null },
  { data: [] },
  { data: [5] },
  { data: [{}] },
  { data: [{ type: 'x' }] },
  { data: [{ type }] },
  { data: [{ id: 'a' }] },
  { data: [{ type: 'x', id: 5 }] },
  { data: [{ type, id: '' }] },
  { data: [{ type, id: 'i'.repeat(201) }] },
  { data: { type, id: 'i'.repeat(201) } },
  { data: [{ type, id: 'a', attributes: { name: 'full resource object' } }] },
  { data: [{ type, id: 'a' }, 7, { type, id: 'b' }, { type: 'x', id: 'c' }] },
  { data: Array.from({ length: 1001 }, (_, i) => ({ type, id: `id-${i}` })) },
  { data: Array.from({ length: 1001 }, () => 5) },
  { data: { type, id: 'a' } },
  { data: { type: 'x' } },
  { data: { type, id: 5 } },
  { data: { id: 'a' } },
];

function bodiesOf(c: Case): unknown[] {
  const bodies = ENVELOPES(c.type);
  for (const name of c.attributes) {
    for (const value of VALUES) bodies.push({ data: { type: c.type, attributes: { [name]: value } } });
  }
  // Every attribute wrong at once, and every attribute wrong with a bad relationship too.
  bodies.push({ data: { type: c.type, attributes: Object.fromEntries(c.attributes.map((n) => [n, 5])) } });
  bodies.push({ data: { type: c.type, attributes: Object.fromEntries(c.attributes.map((n) => [n, null])) } });
  for (const [name, type] of Object.entries(c.relationships ?? {})) {
    for (const value of RELATIONSHIP_VALUES(type)) {
      bodies.push({ data: { type: c.type, relationships: { [name]: value } } });
      bodies.push({
        data: { type: c.type, attributes: { [c.attributes[0]!]: 5 }, relationships: { [name]: value } },
      });
    }
  }
  return bodies;
}

const itemsOf = (err: unknown): ErrorItem[] | undefined => {
  if (err === undefined) return undefined;
  if (!(err instanceof AppError)) throw err;
  return err.items;
};

/**
 * What a client gets for `body`: the schema's 422 when it refuses the body (the route raises it
 * before reading), else the reader's (rules across attributes, members the schema only
 * describes), else nothing. Recorded in the snapshot from the readers that checked everything
 * themselves (before ADR 0031 removed the checks the schemas make), so the answers stay exact.
 */
function answerFor(validate: (body: unknown) => unknown, read: Reader, body: unknown): string[] {
  const fromSchema = itemsOf((validate(body) as { error?: unknown }).error);
  let fromReader: ErrorItem[] | undefined;
  if (fromSchema === undefined) {
    try {
      read(body);
    } catch (err) {
      fromReader = itemsOf(err);
    }
  }
  const label = String(JSON.stringify(body)).slice(0, 120);
  const items = fromSchema ?? fromReader ?? [];
  return items.length === 0
    ? [`${label} → accepted`]
    : items.map((i) => `${label} → ${i.pointer ?? i.field}: ${i.detail}`);
}

const compile = (method: string, url: string) => {
  const route = app.registeredRoutes.find((r) => r.method === method && r.url === url);
  const schema = (route?.schema as { body?: unknown } | undefined)?.body;
  expect(schema, `${method} ${url} declares a body schema`).toBeDefined();
  return validatorCompiler({ schema: schema as object, method, url, httpPart: 'body' });
};

describe('body schemas and readers answer every malformed body as before', () => {
  it('every body route is in the battery or reads a raw or optional body', () => {
    const bodyRoutes = app.registeredRoutes.filter((r) => (r.schema as { body?: unknown } | undefined)?.body);
    expect(bodyRoutes.length).toBeGreaterThan(20);
  });

  for (const c of CASES) {
    it(`${c.method} ${c.url}`, () => {
      const validate = compile(c.method, c.url);
      const answers = bodiesOf(c).flatMap((body) => answerFor(validate, c.read, body));
      expect(answers.length).toBeGreaterThan(20);
      expect(answers).toMatchSnapshot();
    });
  }

  it('relationship endpoints: identifier lists', () => {
    const validate = compile('POST', '/api/v2/policy-sets/:id/relationships/workspace-exclusions');
    const bodies = [
      undefined,
      null,
      5,
      {},
      { data: null },
      { data: {} },
      ...RELATIONSHIP_VALUES('workspaces'),
    ];
    const read: Reader = (body) => readIdentifierList(body);
    expect(bodies.flatMap((body) => answerFor(validate, read, body))).toMatchSnapshot();
  });
});
