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
 * The route schemas validate bodies (ADR 0028) with exactly the 422 the hand-written readers
 * answered before: for a battery of malformed documents, each body route's schema reports the
 * same problems (detail and pointer, in the same order) as the reader that route still uses to
 * read values. No backend is involved: only schemas and readers run.
 */
let app: FastifyInstance;
beforeAll(async () => {
  app = await buildApp({ clients: {} as Clients, logger: createLogger('gateway-test', 'silent') });
  await app.ready();
});
afterAll(() => app.close());

type Reader = (body: unknown) => unknown;

const simple =
  (
    type: string,
    read: (doc: RequestDocument) => void,
    options?: ConstructorParameters<typeof RequestDocument>[2],
  ): Reader =>
  (body) => {
    const doc = new RequestDocument(body, type, options);
    read(doc);
    doc.done();
  };

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
    read: simple('projects', (d) => {
      d.string('name', { required: true, maxLength: 200 });
      d.nullableString('description', { maxLength: 1000 });
    }),
    attributes: ['name', 'description'],
  },
  {
    method: 'PATCH',
    url: '/api/v2/workspaces/:id',
    type: 'workspaces',
    read: simple('workspaces', (d) => {
      d.string('name', { maxLength: 200 });
      d.nullableString('description', { maxLength: 1000 });
      d.relationshipId('project', 'projects');
    }),
    attributes: ['name', 'description'],
    relationships: { project: 'projects' },
  },
  {
    method: 'POST',
    url: '/api/v2/runs',
    type: 'runs',
    read: simple('runs', (d) => {
      d.nullableString('message', { maxLength: 10_000 });
      d.boolean('plan-only');
      d.relationshipId('workspace', 'workspaces');
      d.relationshipId('configuration-version', 'configuration-versions');
    }),
    attributes: ['message', 'plan-only'],
    relationships: { workspace: 'workspaces', 'configuration-version': 'configuration-versions' },
  },
  {
    method: 'POST',
    url: '/api/v2/workspaces/:id/configuration-versions',
    type: 'configuration-versions',
    read: simple(
      'configuration-versions',
      (d) => {
        d.boolean('auto-queue-runs');
        d.boolean('speculative');
        d.boolean('provisional');
      },
      { typeOptional: true },
    ),
    attributes: ['auto-queue-runs', 'speculative', 'provisional'],
  },
  {
    method: 'POST',
    url: '/api/v2/organizations/:org/policy-sets',
    type: 'policy-sets',
    read: (body) => readPolicySetBody(new RequestDocument(body, 'policy-sets'), { create: true }),
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
    read: (body) => readPolicySetBody(new RequestDocument(body, 'policy-sets'), { create: false }),
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
    read: (body) => readPolicyAttributes(new RequestDocument(body, 'policies'), { create: true }),
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
    read: simple('teams', (d) => {
      d.string('name', { required: true, maxLength: 90 });
      d.object('organization-access');
    }),
    attributes: ['name', 'organization-access'],
  },
  {
    method: 'POST',
    url: '/api/v2/admin/users',
    type: 'users',
    read: simple('users', (d) => {
      d.string('username', { required: true, maxLength: 90 });
      d.string('email', { required: true, maxLength: 254 });
      d.boolean('is-site-admin');
    }),
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

/**
 * Problems only a reader reports: a rule relating several attributes, the members of the
 * object attributes whose readers word them (`vcs-repo`, `enforce`), and words outside a proto
 * enum (ADR 0035), answered with the service's 422 as before; the schema documents those.
 */
const READER_RULES = (item: ErrorItem): boolean =>
  item.detail === 'module-consumers or provider-consumers is required' ||
  ['kind', 'enforcement_level', 'enforce[0].mode'].includes(item.field ?? '') ||
  /^\/data\/attributes\/(vcs-repo|enforce)(\/|$)/.test(item.pointer ?? '');

const itemsOf = (err: unknown): ErrorItem[] | undefined => {
  if (err === undefined) return undefined;
  if (!(err instanceof AppError)) throw err;
  return err.items;
};

describe('body schemas answer exactly as the readers', () => {
  it('every body route is in the battery or reads a raw or optional body', () => {
    const bodyRoutes = app.registeredRoutes.filter((r) => (r.schema as { body?: unknown } | undefined)?.body);
    expect(bodyRoutes.length).toBeGreaterThan(20);
  });

  for (const c of CASES) {
    it(`${c.method} ${c.url}`, () => {
      const route = app.registeredRoutes.find((r) => r.method === c.method && r.url === c.url);
      const schema = (route?.schema as { body?: unknown } | undefined)?.body;
      expect(schema, `${c.method} ${c.url} declares a body schema`).toBeDefined();
      const validate = validatorCompiler({
        schema: schema as object,
        method: c.method,
        url: c.url,
        httpPart: 'body',
      });
      let compared = 0;
      for (const body of bodiesOf(c)) {
        const result = validate(body) as { error?: unknown };
        let readerError: unknown;
        try {
          c.read(body);
        } catch (err) {
          readerError = err;
        }
        const fromSchema = itemsOf(result.error);
        const fromReader = itemsOf(readerError);
        const label = String(JSON.stringify(body)).slice(0, 300);
        if (fromSchema === undefined && fromReader !== undefined) {
          // Rules across attributes stay with the reader; nothing about shape or JSON types does.
          expect(
            fromReader.filter((i) => !READER_RULES(i)),
            label,
          ).toEqual([]);
        } else {
          expect(fromSchema, label).toEqual(fromReader);
        }
        compared++;
      }
      expect(compared).toBeGreaterThan(20);
    });
  }

  it('relationship endpoints: identifier lists', () => {
    const route = app.registeredRoutes.find(
      (r) => r.method === 'POST' && r.url === '/api/v2/policy-sets/:id/relationships/workspace-exclusions',
    );
    const validate = validatorCompiler({
      schema: (route!.schema as { body: object }).body,
      method: 'POST',
      url: route!.url,
      httpPart: 'body',
    });
    const bodies = [
      undefined,
      null,
      5,
      {},
      { data: null },
      { data: {} },
      ...RELATIONSHIP_VALUES('workspaces'),
    ];
    for (const body of bodies) {
      let readerError: unknown;
      try {
        readIdentifierList(body, 'workspaces');
      } catch (err) {
        readerError = err;
      }
      const result = validate(body) as { error?: unknown };
      expect(itemsOf(result.error), String(JSON.stringify(body)).slice(0, 300)).toEqual(itemsOf(readerError));
    }
  });
});
