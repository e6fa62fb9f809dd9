import { type adminorgsV1, decodeMessage, timestampToIso } from '@policyhub/contracts';
import { TOPICS } from '@policyhub/events';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminUpdate, createOrganizationAs, idsOf } from './support/admin-organizations.js';
import { uniqueName } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/** An org-sharing-changed event with its time as the RFC 3339 text a consumer would log. */
type SharingChanged = Omit<adminorgsV1.OrgSharingChanged__Output, 'occurredAt'> & {
  occurredAt: string | null;
};

describe('registry sharing: module and provider consumers', () => {
  let t: TestSystem;
  /** Every org-sharing-changed event the system published, as a consumer sees it. */
  const events: SharingChanged[] = [];

  const orgs = async (count: number) => {
    const s = uniqueName('share');
    const names: string[] = [];
    for (let i = 0; i < count; i++) names.push(await createOrganizationAs(t.admin, `${s}-${i}`));
    return names;
  };
  const consumersOf = async (name: string, registry: 'module' | 'provider', query = '') => {
    const res = await t.admin.get(
      `/api/v2/admin/organizations/${name}/relationships/${registry}-consumers${query}`,
    );
    expect(res.status, res.text).toBe(200);
    return res;
  };
  const setModuleConsumers = (name: string, data: unknown) =>
    t.admin.patch(`/admin/organizations/${name}/relationships/module-consumers`, { data });
  const partnerships = (name: string, attributes: Record<string, unknown>, type = 'registry-partnerships') =>
    t.admin.put(`/admin/organizations/${name}/registry-partnerships`, { data: { type, attributes } });
  const ref = (id: string) => ({ type: 'organizations', id });

  beforeAll(async () => {
    t = await startTestSystem();
    await t.system.transport.subscribe(
      'e2e-sharing-observer',
      [TOPICS.orgSharingChanged.name],
      async (message) => {
        const event = decodeMessage<adminorgsV1.OrgSharingChanged__Output>(
          TOPICS.orgSharingChanged.type,
          message.payload,
        );
        events.push({ ...event, occurredAt: timestampToIso(event.occurredAt) });
      },
    );
  });
  afterAll(() => t?.stop());

  it('lists no consumers while nothing is configured', async () => {
    const [a] = await orgs(1);
    for (const registry of ['module', 'provider'] as const) {
      const res = await consumersOf(a!, registry);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.pagination).toMatchObject({
        'current-page': 1,
        'page-size': 20,
        'total-count': 0,
      });
    }
  });

  it('PATCH module-consumers answers 204 and replaces the list', async () => {
    const [a, b, c] = await orgs(3);
    const first = await setModuleConsumers(a!, [ref(b!)]);
    expect(first.status, first.text).toBe(204);
    expect(first.text).toBe('');
    const listed = await consumersOf(a!, 'module');
    expect(idsOf(listed.body)).toEqual([b]);
    expect(listed.body.data[0]).toMatchObject({
      type: 'organizations',
      attributes: { name: b, 'global-module-sharing': false },
      links: { self: `/api/v2/admin/organizations/${b}` },
    });

    expect((await setModuleConsumers(a!, [ref(c!)])).status).toBe(204);
    expect(idsOf((await consumersOf(a!, 'module')).body)).toEqual([c]);
    // Full resource objects (as clients re-send them) are fine: only type and id count.
    const full = listed.body.data[0];
    expect((await setModuleConsumers(a!, [full, ref(c!)])).status).toBe(204);
    expect(idsOf((await consumersOf(a!, 'module')).body)).toEqual([b, c]);
    // Module consumers are not provider consumers.
    expect((await consumersOf(a!, 'provider')).body.data).toEqual([]);
  });

  it('PATCH module-consumers with an empty list clears it', async () => {
    const [a, b] = await orgs(2);
    await setModuleConsumers(a!, [ref(b!)]);
    expect((await setModuleConsumers(a!, [])).status).toBe(204);
    expect((await consumersOf(a!, 'module')).body.data).toEqual([]);
  });

  it('setting module consumers turns global module sharing off', async () => {
    const [a, b] = await orgs(2);
    expect(
      (await adminUpdate(t, a!, { 'global-module-sharing': true })).body.data.attributes[
        'global-module-sharing'
      ],
    ).toBe(true);
    expect((await setModuleConsumers(a!, [ref(b!)])).status).toBe(204);
    const org = await t.admin.get(`/api/v2/admin/organizations/${a}`);
    expect(org.body.data.attributes['global-module-sharing']).toBe(false);
    expect(idsOf((await consumersOf(a!, 'module')).body)).toEqual([b]);
  });

  it('enabling global module sharing clears the module consumers; the list stays empty while it is on', async () => {
    const [a, b] = await orgs(2);
    await setModuleConsumers(a!, [ref(b!)]);
    expect((await adminUpdate(t, a!, { 'global-module-sharing': true })).status).toBe(200);
    expect((await consumersOf(a!, 'module')).body.data).toEqual([]);
    expect((await adminUpdate(t, a!, { 'global-module-sharing': false })).status).toBe(200);
    expect((await consumersOf(a!, 'module')).body.data).toEqual([]);
  });

  it('rejects unknown consumers, wrong element types and malformed bodies with 422, changing nothing', async () => {
    const [a, b] = await orgs(2);
    await setModuleConsumers(a!, [ref(b!)]);
    const cases: unknown[] = [
      [ref(b!), ref(uniqueName('ghost'))],
      [ref('not an org!')],
      [{ type: 'workspaces', id: b }],
      [{ id: b }],
      [ref(a!)],
    ];
    for (const data of cases) {
      const res = await setModuleConsumers(a!, data);
      expect(res.status, JSON.stringify(data)).toBe(422);
      expect(res.body.errors[0].title).toBe('invalid attribute');
    }
    expect(
      (await t.admin.patch(`/admin/organizations/${a}/relationships/module-consumers`, { data: ref(b!) }))
        .status,
    ).toBe(422);
    expect((await t.admin.patch(`/admin/organizations/${a}/relationships/module-consumers`, {})).status).toBe(
      422,
    );
    expect(idsOf((await consumersOf(a!, 'module')).body)).toEqual([b]);
    // An unknown producer is a 404 whatever the body.
    expect((await setModuleConsumers(uniqueName('ghost'), 'junk')).status).toBe(404);
  });

  it('paginates consumer lists', async () => {
    const [a, ...consumers] = await orgs(4);
    await setModuleConsumers(a!, consumers.map(ref));
    const first = await consumersOf(a!, 'module', '?page%5Bsize%5D=2');
    expect(idsOf(first.body)).toEqual(consumers.slice(0, 2));
    expect(first.body.meta.pagination).toMatchObject({
      'current-page': 1,
      'next-page': 2,
      'total-pages': 2,
      'total-count': 3,
    });
    const second = await t.admin.get(first.body.links.next);
    expect(idsOf(second.body)).toEqual(consumers.slice(2));
    const past = await consumersOf(a!, 'module', '?page[number]=5&page[size]=2');
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination).toMatchObject({ 'current-page': 5, 'total-count': 3 });
  });

  it('PUT registry-partnerships sets module and provider consumers (hyphen or underscore names)', async () => {
    const [a, b, c] = await orgs(3);
    const both = await partnerships(a!, { 'module-consumers': [b], 'provider-consumers': [c] });
    expect(both.status, both.text).toBe(204);
    expect(idsOf((await consumersOf(a!, 'module')).body)).toEqual([b]);
    expect(idsOf((await consumersOf(a!, 'provider')).body)).toEqual([c]);

    // A list that is not sent keeps its value.
    expect((await partnerships(a!, { provider_consumers: [b, c] })).status).toBe(204);
    expect(idsOf((await consumersOf(a!, 'provider')).body)).toEqual([b, c]);
    expect(idsOf((await consumersOf(a!, 'module')).body)).toEqual([b]);
    expect((await partnerships(a!, { module_consumers: [] })).status).toBe(204);
    expect((await consumersOf(a!, 'module')).body.data).toEqual([]);
  });

  it('PUT registry-partnerships rejects unknown names, wrong types and empty requests with 422', async () => {
    const [a, b] = await orgs(2);
    const cases: Array<[Record<string, unknown>, string?]> = [
      [{ 'provider-consumers': [uniqueName('ghost')] }],
      [{ 'provider-consumers': 'not-a-list' }],
      [{ 'module-consumers': [1, 2] }],
      [{ 'module-consumers': [b], module_consumers: [] }],
      [{}],
      [{ 'module-consumers': [b] }, 'organizations'],
    ];
    for (const [attributes, type] of cases) {
      const res = await partnerships(a!, attributes, type);
      expect(res.status, JSON.stringify(attributes)).toBe(422);
    }
    expect((await consumersOf(a!, 'module')).body.data).toEqual([]);
    expect((await partnerships(uniqueName('ghost'), {})).status).toBe(404);
  });

  it('enabling global provider sharing clears provider consumers; setting them turns it off', async () => {
    const [a, b] = await orgs(2);
    await partnerships(a!, { 'provider-consumers': [b] });
    const on = await adminUpdate(t, a!, { 'global-provider-sharing': true });
    expect(on.body.data.attributes['global-provider-sharing']).toBe(true);
    expect((await consumersOf(a!, 'provider')).body.data).toEqual([]);
    await partnerships(a!, { 'provider-consumers': [b] });
    expect(
      (await t.admin.get(`/api/v2/admin/organizations/${a}`)).body.data.attributes['global-provider-sharing'],
    ).toBe(false);
    expect(idsOf((await consumersOf(a!, 'provider')).body)).toEqual([b]);
  });

  it('organizations naming each other as consumers at the same time all succeed', async () => {
    const [a, b] = await orgs(2);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0 ? setModuleConsumers(a!, [ref(b!)]) : partnerships(b!, { 'module-consumers': [a] }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(204));
    expect(idsOf((await consumersOf(a!, 'module')).body)).toEqual([b]);
    expect(idsOf((await consumersOf(b!, 'module')).body)).toEqual([a]);
  });

  it('a deleted organization disappears from the consumer lists it was on', async () => {
    const [a, b, c] = await orgs(3);
    await partnerships(a!, { 'module-consumers': [b, c], 'provider-consumers': [b] });
    expect((await t.admin.delete(`/admin/organizations/${b}`)).status).toBe(204);
    expect(idsOf((await consumersOf(a!, 'module')).body)).toEqual([c]);
    expect((await consumersOf(a!, 'provider')).body.data).toEqual([]);
  });

  it('publishes admin-orgs.org-sharing-changed for every change of sharing settings', async () => {
    const [a, b, c] = await orgs(3);
    const seen = () => events.filter((e) => e.organization === a);
    const expectEvents = (count: number) => waitFor(async () => seen().length >= count && seen());

    await setModuleConsumers(a!, [ref(b!)]);
    await adminUpdate(t, a!, { 'global-provider-sharing': true });
    await partnerships(a!, { 'provider-consumers': [c] });
    // Neither of these changes sharing, so neither publishes anything.
    await adminUpdate(t, a!, { 'access-beta-tools': true, 'global-provider-sharing': false });
    await setModuleConsumers(a!, [ref(b!)]);
    await adminUpdate(t, a!, { 'global-module-sharing': true });
    // Deleting a consumer changes the producer's lists too.
    await t.admin.delete(`/admin/organizations/${c}`);

    const received = await expectEvents(5);
    expect(received.map(({ eventId, occurredAt, ...rest }) => rest)).toEqual([
      {
        organization: a,
        globalModuleSharing: false,
        globalProviderSharing: false,
        moduleConsumers: [b],
        providerConsumers: [],
      },
      {
        organization: a,
        globalModuleSharing: false,
        globalProviderSharing: true,
        moduleConsumers: [b],
        providerConsumers: [],
      },
      {
        organization: a,
        globalModuleSharing: false,
        globalProviderSharing: false,
        moduleConsumers: [b],
        providerConsumers: [c],
      },
      {
        organization: a,
        globalModuleSharing: true,
        globalProviderSharing: false,
        moduleConsumers: [],
        providerConsumers: [c],
      },
      {
        organization: a,
        globalModuleSharing: true,
        globalProviderSharing: false,
        moduleConsumers: [],
        providerConsumers: [],
      },
    ]);
    for (const e of received) {
      expect(e.eventId).toMatch(/^[0-9a-f-]{36}$/);
      expect(e.occurredAt).toMatch(/Z$/);
    }
  });
});
