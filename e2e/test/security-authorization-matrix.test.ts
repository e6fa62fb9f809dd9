import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from './support/api.js';
import {
  ENDPOINTS,
  type Endpoint,
  type PreparedCall,
  endpointLabel,
  registeredRoutes,
  routeKey,
} from './support/route-catalog.js';
import { closeInternalApi } from './support/security-fixtures.js';
import { NOT_FOUND, UNAUTHORIZED, sendCall } from './support/security-http.js';
import { startSecurityTestSystem } from './support/security-system.js';
import { type OrgContext, SecurityWorld } from './support/security-world.js';
import type { TestSystem } from './support/system.js';

/**
 * Who may call what, over every endpoint the gateway serves (docs/security.md): anonymous → 401;
 * the owner of another organization → 404; a member of the resource's organization without the
 * needed permission → 404; a permitted member → success; admin paths: site admins only, 404 for
 * everyone else. Denials look exactly like a missing resource, and a denied call changes nothing
 * (each endpoint's permitted call comes last and would fail if a denied one had acted).
 *
 * The whole matrix runs twice on one system: once with ordinary names, once with every name a
 * user chooses taken from `Object.prototype` (organizations `constructor` and `__proto__`, teams,
 * workspaces, projects, policies and sets `constructor`, `toString`, `hasOwnProperty`, …) and
 * every request carrying prototype-named query keys and `__proto__`/`constructor` keys in its
 * JSON body: same answers, same denials, never a 5xx.
 */

let t: TestSystem;

beforeAll(async () => {
  t = await startSecurityTestSystem();
});
afterAll(async () => {
  if (t) closeInternalApi(t);
  await t?.stop();
});

const describeCall = (who: string, res: ApiResponse) => `${who}: ${res.status} ${res.text.slice(0, 300)}`;

function expectDenied(who: string, res: ApiResponse, expected: typeof NOT_FOUND | typeof UNAUTHORIZED) {
  expect(res.status, describeCall(who, res)).toBe(Number(expected.errors[0]!.status));
  expect(res.body, describeCall(who, res)).toEqual(expected);
}

function expectSuccess(who: string, endpoint: Endpoint, res: ApiResponse) {
  expect(res.status, describeCall(who, res)).toBe(endpoint.success);
}

describe('the route catalog', () => {
  it('lists exactly the routes the gateway registered (add new endpoints to support/route-catalog.ts)', () => {
    const registered = registeredRoutes(t.system.app).map((r) => routeKey(r.method, r.path));
    expect(registered).toContain('GET /api/v2/ping');
    expect(registered.length).toBeGreaterThan(50);
    const catalogued = ENDPOINTS.map((e) => routeKey(e.method, e.path));
    expect(new Set(catalogued).size, 'duplicate catalog entries').toBe(catalogued.length);
    expect({
      servedButNotCatalogued: registered.filter((k) => !catalogued.includes(k)).sort(),
      cataloguedButNotServed: catalogued.filter((k) => !registered.includes(k)).sort(),
    }).toEqual({ servedButNotCatalogued: [], cataloguedButNotServed: [] });
  });
});

/**
 * Query keys and values named after `Object.prototype` properties; endpoints ignore them. (A
 * `filter[__proto__]` is an unsupported filter, refused with a 400: run-lists.test.ts.)
 */
const PROTOTYPE_QUERY = [
  '__proto__%5Bx%5D=1',
  '__proto__=1',
  'constructor%5Bprototype%5D%5Bpolluted%5D=1',
  'toString=1',
  'hasOwnProperty=1',
].join('&');

const ownKey = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

/**
 * The call's JSON:API document with `__proto__` and `constructor` members added to `data` and
 * its `attributes` (own properties, serialized as such): an endpoint must ignore them like any
 * unknown member, whatever they claim.
 */
function withPrototypeKeys(call: PreparedCall): PreparedCall {
  const body = call.body as { data?: unknown } | undefined;
  if (!body || typeof body.data !== 'object' || body.data === null || Array.isArray(body.data)) return call;
  const copy = JSON.parse(JSON.stringify(body)) as { data: Record<string, unknown> };
  ownKey(copy.data, '__proto__', { type: 'organizations', id: 'x', attributes: { 'is-site-admin': true } });
  const attributes = copy.data.attributes as Record<string, unknown> | undefined;
  if (attributes) {
    ownKey(attributes, '__proto__', { 'is-site-admin': true, 'is-disabled': true, global: true });
    ownKey(attributes, 'constructor', { prototype: { polluted: 1 } });
  }
  return { ...call, body: copy };
}

function describeMatrix(title: string, options: { prototypeNames: boolean }) {
  describe(title, () => {
    let world: SecurityWorld;
    beforeAll(async () => {
      world = options.prototypeNames
        ? await SecurityWorld.createWithPrototypeNames(t)
        : await SecurityWorld.create(t);
      if (options.prototypeNames)
        expect([world.orgA.name, world.orgB.name]).toEqual(['constructor', '__proto__']);
    });

    const sender = (endpoint: Endpoint, prepared: PreparedCall) => {
      const call = options.prototypeNames ? withPrototypeKeys(prepared) : prepared;
      const query = options.prototypeNames ? PROTOTYPE_QUERY : undefined;
      return (client: ApiClient, method?: string) => sendCall(client, endpoint, call, method, query);
    };

    describe('authorization of every endpoint', () => {
      it.each(ENDPOINTS.map((e) => [endpointLabel(e), e] as const))('%s', async (_label, endpoint) => {
        const call = await endpoint.prepare(world, world.orgA);
        const org = call.org ?? world.orgA;
        const send = sender(endpoint, call);
        const isGet = endpoint.method === 'GET';
        const access = endpoint.access;

        if (access.kind === 'public') {
          const res = await send(t.anonymous);
          expectSuccess('anonymous', endpoint, res);
          if (isGet) expect((await send(t.anonymous, 'HEAD')).status).toBe(endpoint.success);
          return;
        }

        expectDenied('anonymous', await send(t.anonymous), UNAUTHORIZED);
        expectDenied('an unknown token', await send(t.client('ph.not-a-real-token')), UNAUTHORIZED);
        if (isGet) expect((await send(t.anonymous, 'HEAD')).status, 'anonymous HEAD').toBe(401);

        switch (access.kind) {
          case 'authenticated':
            expectSuccess('any user', endpoint, await send(world.outsider.api));
            return;
          case 'self': {
            expectDenied('another user', await send(world.outsider.api), NOT_FOUND);
            expectSuccess('the user', endpoint, await send(call.self!.api));
            // A deletion is done once: the site admin deletes another user's resource.
            const adminSend =
              endpoint.method === 'DELETE'
                ? sender(endpoint, await endpoint.prepare(world, world.orgA))
                : send;
            expectSuccess('a site admin', endpoint, await adminSend(t.admin));
            return;
          }
          case 'site-admin': {
            const allPermissions = await world.orgA.forbidden('owner');
            for (const [who, user] of [
              ['another organization owner', world.outsider],
              ['an organization owner', world.orgA.owner],
              ['a member with every permission', allPermissions!],
            ] as const) {
              expectDenied(who, await send(user.api), NOT_FOUND);
            }
            if (isGet) expect((await send(world.outsider.api, 'HEAD')).status, 'non-admin HEAD').toBe(404);
            expectSuccess('the site admin', endpoint, await send(t.admin));
            return;
          }
          case 'org': {
            expectDenied('the owner of another organization', await send(world.outsider.api), NOT_FOUND);
            if (isGet) expect((await send(world.outsider.api, 'HEAD')).status, 'outsider HEAD').toBe(404);
            const forbidden = await org.forbidden(access.requirement);
            if (forbidden) {
              expectDenied(`a member without ${access.requirement}`, await send(forbidden.api), NOT_FOUND);
            }
            const permitted = await org.permitted(access.requirement);
            expectSuccess(`a member with ${access.requirement}`, endpoint, await send(permitted.api));
            return;
          }
        }
      });
    });

    describe('a disabled organization is inaccessible to everyone but site admins', () => {
      let disabled: OrgContext;
      beforeAll(async () => {
        disabled = await world.otherOrg('sec-off');
      });

      const setDisabled = async (name: string, isDisabled: boolean) => {
        const res = await t.admin.patch(`/admin/organizations/${name}`, {
          data: { type: 'organizations', attributes: { 'is-disabled': isDisabled } },
        });
        expect(res.status, res.text).toBe(200);
      };

      const orgScoped = ENDPOINTS.filter((e) => e.access.kind === 'org');
      it.each(orgScoped.map((e) => [endpointLabel(e), e] as const))('%s', async (_label, endpoint) => {
        await setDisabled(disabled.name, false);
        const call = await endpoint.prepare(world, disabled);
        const org = call.org ?? disabled;
        const requirement = endpoint.access.kind === 'org' ? endpoint.access.requirement : 'owner';
        const permitted = await org.permitted(requirement);
        await setDisabled(org.name, true);
        const send = sender(endpoint, call);
        expectDenied('its owner', await send(org.owner.api), NOT_FOUND);
        expectDenied(`a member with ${requirement}`, await send(permitted.api), NOT_FOUND);
        expectSuccess('a site admin', endpoint, await send(t.admin));
      });
    });
  });
}

describeMatrix('every endpoint, ordinary names', { prototypeNames: false });
describeMatrix('every endpoint, names and keys from Object.prototype', { prototypeNames: true });
