import type { Principal } from '@policyhub/grpc-runtime';
import { notFound } from '@policyhub/errors';
import { createLogger } from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Clients } from '../src/clients/index.js';
import { JSON_BODY_MAX_DEPTH, nestsDeeperThan } from '../src/plugins/body-parsing.js';
import { nulCharacterPointer } from '../src/plugins/nul-characters.js';

const TOKEN = 'ph.token';
const admin: Principal = { userId: 'user-1', username: 'admin', isSiteAdmin: true, memberships: new Map() };

describe('nulCharacterPointer', () => {
  it('points at the first string or key holding U+0000, escaping the pointer', () => {
    expect(nulCharacterPointer({ data: { attributes: { name: 'ok', description: 'a\u0000b' } } })).toBe(
      '/data/attributes/description',
    );
    expect(nulCharacterPointer({ data: [{ id: 'x' }, { id: '\u0000' }] })).toBe('/data/1/id');
    expect(nulCharacterPointer({ 'a/b~c': { 'k\u0000': 1 } })).toBe('/a~1b~0c/k\u0000');
    expect(nulCharacterPointer({ data: { attributes: { name: 'a\\u0000', n: 1, b: true, z: null } } })).toBe(
      undefined,
    );
  });

  it('walks bodies nested far deeper than the call stack allows', () => {
    const depth = 500_000;
    const deep = JSON.parse(`${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`);
    expect(nulCharacterPointer(deep)).toBe('/0'.repeat(depth));
  });
});

describe('nestsDeeperThan', () => {
  it('counts objects and arrays inside each other, not brackets inside strings', () => {
    expect(nestsDeeperThan('{"a":[{"b":[]}]}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[]}]}', 3)).toBe(true);
    expect(nestsDeeperThan('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\\\"}[[[', 1)).toBe(true);
    expect(nestsDeeperThan('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(nestsDeeperThan('[[],[],[],[]]', 2)).toBe(false);
  });
});

describe('the edge refuses NUL characters and bad URLs before any service sees them', () => {
  let app: FastifyInstance;
  const reached: unknown[] = [];

  beforeAll(async () => {
    const clients = {
      identity: { Authenticate: async () => ({ principal: { ...admin, memberships: [] } }) },
      organizations: {
        GetOrganization: async (req: unknown) => {
          reached.push(req);
          throw notFound();
        },
        CreateOrganization: async (req: unknown) => {
          reached.push(req);
          throw notFound();
        },
      },
    } as unknown as Clients;
    app = await buildApp({ clients, logger: createLogger('gateway', 'silent') });
  });
  afterAll(() => app.close());

  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/vnd.api+json' };

  it('a body string holding NUL is a 422 pointing at it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/organizations',
      headers: auth,
      payload: '{"data":{"type":"organizations","attributes":{"name":"a","email":"x\\u0000@y"}}}',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      errors: [
        {
          status: '422',
          code: 'GATEWAY_NUL_CHARACTER',
          title: 'invalid attribute',
          detail: 'must not contain the NUL character (\\u0000)',
          source: { pointer: '/data/attributes/email' },
        },
      ],
    });
    expect(reached).toEqual([]);
  });

  it('a body nested deeper than the limit is a 422 naming it, whatever it holds', async () => {
    const nested = (levels: number) =>
      `{"data":{"type":"organizations","attributes":{"name":"a","x":${'['.repeat(levels)}${']'.repeat(levels)}}}}`;
    const deep = await app.inject({
      method: 'POST',
      url: '/api/v2/organizations',
      headers: auth,
      payload: nested(JSON_BODY_MAX_DEPTH),
    });
    expect(deep.statusCode).toBe(422);
    expect(deep.json()).toEqual({
      errors: [
        {
          status: '422',
          code: 'GATEWAY_BODY_TOO_DEEP',
          title: 'invalid attribute',
          detail: `the request body nests objects and arrays more than ${JSON_BODY_MAX_DEPTH} levels deep`,
          source: { pointer: '/' },
        },
      ],
    });
    expect(reached).toEqual([]);
    const shallow = await app.inject({
      method: 'POST',
      url: '/api/v2/organizations',
      headers: auth,
      payload: nested(JSON_BODY_MAX_DEPTH - 3),
    });
    expect(shallow.json().errors[0].code).not.toBe('GATEWAY_BODY_TOO_DEEP');
    reached.length = 0;
  });

  it('an escaped backslash followed by u0000 is ordinary text', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/organizations',
      headers: auth,
      payload: '{"data":{"type":"organizations","attributes":{"name":"a\\\\u0000","email":"x@y"}}}',
    });
    expect(res.statusCode).toBe(404);
    expect(reached.pop()).toMatchObject({ name: 'a\\u0000' });
  });

  it('a path parameter holding NUL is a 404 (after authentication), a query value a 422', async () => {
    const path = await app.inject({ method: 'GET', url: '/api/v2/organizations/acme%00', headers: auth });
    expect(path.statusCode).toBe(404);
    expect(path.json()).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] });
    const anonymous = await app.inject({ method: 'GET', url: '/api/v2/organizations/acme%00' });
    expect(anonymous.statusCode).toBe(401);
    const query = await app.inject({ method: 'GET', url: '/api/v2/organizations/acme?q=%00', headers: auth });
    expect(query.statusCode).toBe(422);
    expect(query.json().errors[0].source).toEqual({ parameter: 'q' });
    expect(reached).toEqual([]);
  });

  it('malformed percent-encoding is a 400 and an overlong path segment a 414, both JSON:API errors', async () => {
    const bad = await app.inject({ method: 'GET', url: '/api/v2/organizations/%ZZ', headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/vnd.api+json');
    expect(bad.json()).toEqual({
      errors: [
        {
          status: '400',
          code: 'GATEWAY_INVALID_URL',
          title: 'bad request',
          detail: 'the URL is not validly percent-encoded',
        },
      ],
    });
    const long = await app.inject({
      method: 'GET',
      url: `/api/v2/organizations/${'a'.repeat(5000)}`,
      headers: auth,
    });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({
      errors: [
        {
          status: '414',
          code: 'GATEWAY_URI_TOO_LONG',
          title: 'uri too long',
          detail: 'a path segment of the URL is too long',
        },
      ],
    });
    expect(long.body).not.toContain('aaaa');
  });
});
