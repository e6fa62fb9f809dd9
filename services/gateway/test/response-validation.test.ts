import { Writable } from 'node:stream';
import type { Principal } from '@policyhub/grpc-runtime';
import { Type } from '@sinclair/typebox';
import { createLogger } from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Clients } from '../src/clients/index.js';
import { resourceDocument, schema } from '../src/schemas/common.js';
import { USER } from '../src/resources/users/schema.js';
import { closed } from '../src/schemas/resources.js';
import type { VocabularyProfile } from '../src/vocabulary.js';

/**
 * The response-validation mode (VALIDATE_RESPONSES, ADR 0031) turns an answer that does not match
 * its route's schema into a logged 500, and leaves matching answers byte for byte as they are.
 * The policy set a fake policy-sets client returns is made wrong in one place at a time.
 */
const SET_ID = 'polset-0123456789abcdef';
const admin: Principal = { userId: 'user-1', username: 'admin', isSiteAdmin: true, memberships: new Map() };
/** 2026-11-24T10:00:00.000Z as the services send it. */
const AT = { seconds: 1795514400, nanos: 0 };
const GOOD_SET = {
  id: SET_ID,
  organization: 'acme',
  name: 'baseline',
  global: false,
  kind: 'POLICY_KIND_A',
  overridable: false,
  agentEnabled: false,
  policyToolVersion: '',
  vcsRepo: null,
  versioned: false,
  policyCount: 0,
  workspaceCount: 0,
  projectCount: 0,
  policyIds: [],
  workspaceIds: [],
  projectIds: [],
  workspaceExclusionIds: [],
  projectExclusionIds: [],
  currentVersionId: '',
  newestVersionId: '',
  createdAt: AT,
  updatedAt: AT,
};

const POLICY = {
  id: 'pol-0123456789abcdef',
  organization: 'acme',
  name: 'no-public-buckets',
  kind: 'POLICY_KIND_A',
  enforcementLevel: 'ENFORCEMENT_LEVEL_SOFT_MANDATORY',
  policySetCount: 1,
  policySetIds: [SET_ID],
  hasCode: true,
  createdAt: AT,
  updatedAt: AT,
};

let served: Record<string, unknown> = GOOD_SET;
const lines: string[] = [];

async function gateway(options: { validateResponses: boolean; vocabulary?: VocabularyProfile }) {
  const clients = {
    identity: { Authenticate: async () => ({ principal: { ...admin, memberships: [] } }) },
    policySets: {
      GetPolicySet: async () => ({ policySet: served }),
      ListPolicySets: async () => ({
        policySets: [
          { ...GOOD_SET, policyIds: [POLICY.id] },
          { ...GOOD_SET, id: 'polset-global0123456789', global: true },
        ],
        page: { currentPage: 1, pageSize: 20, totalPages: 1, totalCount: 2 },
      }),
    },
    policies: { BatchGetPolicies: async () => ({ policies: [POLICY] }) },
  } as unknown as Clients;
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({
    clients,
    logger: createLogger('gateway', 'info', destination),
    validateResponses: options.validateResponses,
    vocabulary: options.vocabulary,
  });
  // A route whose handler answers a member its schema does not list.
  app.get(
    '/api/v2/test/extra-member',
    { schema: schema('test', { summary: 'test', response: { 200: resourceDocument(USER) } }) },
    async (_request, reply) =>
      reply.type('application/vnd.api+json').send({
        data: {
          id: 'user-1',
          type: 'users',
          attributes: {
            username: 'admin',
            email: 'admin@example.com',
            'is-site-admin': true,
            'created-at': '2026-11-24T10:00:00.000Z',
            'two-factor': false,
          },
          links: { self: '/api/v2/users/user-1' },
        },
      }),
  );
  // A route whose schema lists the members in another order than the handler writes them.
  app.get(
    '/api/v2/test/member-order',
    {
      schema: schema('test', {
        summary: 'test',
        response: { 200: closed({ data: closed({ type: Type.String(), id: Type.String() }) }) },
      }),
    },
    async (_request, reply) =>
      reply.type('application/vnd.api+json').send({ data: { id: 'x', type: 'users' } }),
  );
  await app.ready();
  return app;
}

const get = (app: FastifyInstance, url = `/api/v2/policy-sets/${SET_ID}`) =>
  app.inject({ method: 'GET', url, headers: { authorization: 'Bearer ph.token' } });

const mismatchLogs = () =>
  lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'response does not match its schema');

describe('response validation mode', () => {
  let strict: FastifyInstance;
  let plain: FastifyInstance;
  beforeAll(async () => {
    strict = await gateway({ validateResponses: true });
    plain = await gateway({ validateResponses: false });
  });
  afterAll(async () => {
    await strict.close();
    await plain.close();
  });

  it('passes a matching answer through unchanged', async () => {
    served = GOOD_SET;
    lines.length = 0;
    const checked = await get(strict);
    const unchecked = await get(plain);
    expect(checked.statusCode).toBe(200);
    expect(checked.body).toBe(unchecked.body);
    expect(mismatchLogs()).toEqual([]);
  });

  it.each([
    [
      'a missing timestamp (no time where the schema says one)',
      { createdAt: null },
      '/data/attributes/created-at',
    ],
    ['a string of the wrong JSON type', { policyToolVersion: 5 }, '/data/attributes/policy-tool-version'],
    ['a count of the wrong type', { policyCount: -1 }, '/data/attributes/policy-count'],
  ])('answers 500 and logs the mismatch for %s', async (_name, change, path) => {
    served = { ...GOOD_SET, ...change };
    lines.length = 0;
    expect((await get(plain)).statusCode).toBe(200);
    const res = await get(strict);
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      errors: [{ status: '500', code: 'INTERNAL_ERROR', title: 'internal server error' }],
    });
    const [log] = mismatchLogs();
    expect(log).toMatchObject({ route: '/api/v2/policy-sets/:id', method: 'GET', status: 200 });
    expect(log.mismatches.join('\n')).toContain(path);
  });

  it('refuses a member the schema does not list', async () => {
    lines.length = 0;
    expect((await get(plain, '/api/v2/test/extra-member')).statusCode).toBe(200);
    const res = await get(strict, '/api/v2/test/extra-member');
    expect(res.statusCode).toBe(500);
    expect(mismatchLogs()[0].mismatches.join('\n')).toMatch(
      /\/data\/attributes must NOT have additional properties.*two-factor/,
    );
  });

  it('checks error documents too (they match)', async () => {
    lines.length = 0;
    const res = await get(strict, '/api/v2/no-such-route');
    expect(res.statusCode).toBe(404);
    expect(mismatchLogs()).toEqual([]);
  });
});

describe('response validation in the tfe profile', () => {
  it("checks the profile's names: a kind_a set is served as sentinel and matches", async () => {
    const tfe = await gateway({ validateResponses: true, vocabulary: 'tfe' });
    try {
      served = GOOD_SET;
      lines.length = 0;
      const res = await get(tfe);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.attributes.kind).toBe('sentinel');
      expect(mismatchLogs()).toEqual([]);
    } finally {
      await tfe.close();
    }
  });
});

/**
 * Responses are written by fast-json-stringify from the route schemas; the validation mode also
 * checks that it wrote exactly what JSON.stringify writes for the document the handler built.
 */
describe('response validation of what the schema serializer writes', () => {
  let strict: FastifyInstance;
  let plain: FastifyInstance;
  beforeAll(async () => {
    strict = await gateway({ validateResponses: true });
    plain = await gateway({ validateResponses: false });
  });
  afterAll(async () => {
    await strict.close();
    await plain.close();
  });

  it('writes a set byte for byte as JSON.stringify does, with or without the mode', async () => {
    for (const set of [GOOD_SET, { ...GOOD_SET, global: true, description: 'd', policyIds: ['pol-1'] }]) {
      served = set;
      lines.length = 0;
      const checked = await get(strict);
      expect(checked.statusCode).toBe(200);
      expect(checked.body).toBe((await get(plain)).body);
      expect(mismatchLogs()).toEqual([]);
    }
  });

  it('writes a list with included resources byte for byte as JSON.stringify does', async () => {
    lines.length = 0;
    for (const query of ['', '?include=policies']) {
      const url = `/api/v2/organizations/acme/policy-sets${query}`;
      const checked = await get(strict, url);
      expect(checked.statusCode, url).toBe(200);
      expect(checked.body, url).toBe((await get(plain, url)).body);
    }
    expect(
      JSON.parse((await get(plain, '/api/v2/organizations/acme/policy-sets?include=policies')).body).included,
    ).toHaveLength(1);
    expect(mismatchLogs()).toEqual([]);
  });

  it('fails when the serializer writes the members in another order than the document', async () => {
    lines.length = 0;
    // The handler sent {"id", "type"}; the schema lists type first, and so does its serializer.
    expect((await get(plain, '/api/v2/test/member-order')).body).toBe('{"data":{"type":"users","id":"x"}}');
    const res = await get(strict, '/api/v2/test/member-order');
    expect(res.statusCode).toBe(500);
    expect(mismatchLogs()[0].mismatches[0]).toContain('the serializer wrote');
  });

  it('fails on a member the schema does not list before the serializer can drop it', async () => {
    lines.length = 0;
    const res = await get(strict, '/api/v2/test/extra-member');
    expect(res.statusCode).toBe(500);
    expect(mismatchLogs()[0].mismatches.join('\n')).toContain('two-factor');
  });
});
