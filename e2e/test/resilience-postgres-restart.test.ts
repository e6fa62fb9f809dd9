import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';
import { createOrganization, createUser, type SystemApi, uniqueName } from './support/fixtures.js';
import { createKnownResources, everyRoute, type KnownResources } from './support/outage-battery.js';
import { pendingVersion, settledVersion } from './support/pipeline-probes.js';
import { driveLoad, type Outcome, requestWithin } from './support/request-load.js';
import { type RestartablePostgres, startRestartablePostgres } from './support/restartable-postgres.js';

/**
 * "Postgres restarted under load": the whole system runs on a Postgres the test stops and
 * starts while clients keep sending requests. While it is down every route fails fast with a
 * clear 503 JSON:API error (never a 500, never a hang, never a misleading 401 or 404); once it is
 * back everything works again, including the outbox relays and consumers, and every write that
 * was acknowledged is still there.
 */
const DEADLINE_MS = 20_000;

let postgres: RestartablePostgres;
let system: RunningSystem;
let dataDir: string;
let t: SystemApi;
let org: string;
let token: string;
let owner: ApiClient;
let known: KnownResources;

beforeAll(async () => {
  postgres = await startRestartablePostgres();
  dataDir = mkdtempSync(join(tmpdir(), 'policyhub-pg-restart-'));
  system = await startSystem({
    port: 0,
    validateResponses: true,
    dataDir,
    databaseUrl: postgres.url,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const client = (tok: string) => new ApiClient(system.baseUrl, tok);
  t = { admin: client(system.siteAdminToken), client };
  const created = await createOrganization(t, 'pgdown');
  org = created.name;
  token = created.owner.token;
  owner = created.owner.api;
  known = await createKnownResources(t, owner, org);
}, 120_000);
afterAll(async () => {
  await system?.close();
  await postgres?.destroy();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const call = (method: string, path: string, body?: unknown, tok: string | undefined = token) =>
  requestWithin(DEADLINE_MS, path.startsWith('http') ? path : `${system.baseUrl}/api/v2${path}`, {
    method,
    token: tok,
    body,
    label: `${method} ${path}`,
  });

const newSet = (name = uniqueName('set')) => ({ data: { type: 'policy-sets', attributes: { name } } });

/** Creates sets and lists them, over and over: the 201s are the writes that must never be lost. */
function createAndList(worker: number, i: number): Promise<Outcome> {
  if (i % 2 === 0)
    return call(
      'POST',
      `/organizations/${org}/policy-sets`,
      newSet(`load-${worker}-${i}-${uniqueName('s')}`),
    );
  return call('GET', `/organizations/${org}/policy-sets?page[size]=5`);
}

const isCleanUnavailable = (o: Outcome) =>
  o.status === 503 &&
  o.retryAfter === '5' &&
  o.body?.errors?.length === 1 &&
  o.body.errors[0].status === '503' &&
  o.body.errors[0].title === 'service unavailable' &&
  typeof o.body.errors[0].detail === 'string';

/** Every route (and an upload, and a token the gateway has not cached) while the database is out. */
async function callEveryRoute(version: { upload: string }, unseenToken: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const r of everyRoute(known)) {
    outcomes.push(await call(r.method, r.path, r.body, r.asAdmin ? system.siteAdminToken : token));
  }
  outcomes.push(await call('PUT', version.upload, await policyArchive(), undefined));
  // Authentication itself needs the database: 503, not a misleading 401.
  outcomes.push(await call('GET', `/organizations/${org}/policy-sets`, undefined, unseenToken));
  return outcomes;
}

/** The ops listener's readiness: its status and the dependency checks in its body. */
const readyz = async () => {
  const res = await fetch(`${system.opsUrl}/readyz`, { signal: AbortSignal.timeout(DEADLINE_MS) });
  return {
    status: res.status,
    body: (await res.json()) as { status: string; checks: Record<string, Record<string, unknown>> },
  };
};

describe('Postgres restarted under load', () => {
  it('answers 503 on every route while it is down, recovers by itself, and keeps every acknowledged write', async () => {
    const version = await pendingVersion(owner, org);
    // A token the gateway has never seen, so it is not in its principal cache.
    const unseen = await createUser(t, 'unseen');

    const load = driveLoad(3, createAndList);
    await waitFor(async () => load.outcomes.filter((o) => o.status === 201).length >= 3, 30_000);
    await postgres.stop();

    await waitFor(
      async () => (await call('GET', `/organizations/${org}/policy-sets`)).status === 503,
      DEADLINE_MS,
    );
    const during = await callEveryRoute(version, unseen.token);
    expect(during.filter((o) => !isCleanUnavailable(o))).toEqual([]);
    const notReady = await readyz();
    expect(notReady.status).toBe(503);
    expect(notReady.body.checks['policy-sets.database']).toMatchObject({ status: 'down', required: true });
    // Scenario, not assertion: an outage of a few seconds, longer than the relays' and the
    // LISTEN connections' reconnect interval (1 s), with the clients still sending requests.
    await new Promise((r) => setTimeout(r, 3_000));

    await postgres.start();
    await waitFor(
      async () => (await call('GET', `/organizations/${org}/policy-sets`)).status === 200,
      60_000,
      250,
    );
    const outcomes = await load.stop();

    // Under load: only successes and clean 503s, nothing hung past the deadline.
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 201 && !isCleanUnavailable(o))).toEqual(
      [],
    );
    expect(outcomes.some(isCleanUnavailable)).toBe(true);
    // Every acknowledged create is there (ids are unique, so each exactly once).
    const acknowledged = outcomes.filter((o) => o.status === 201).map((o) => o.body.data.id as string);
    const { rows } = await system.services['policy-sets']!.db.query<{ id: string }>(
      'SELECT id FROM policy_sets WHERE id = ANY($1::text[])',
      [acknowledged],
    );
    expect(rows.map((r) => r.id).sort()).toEqual([...acknowledged].sort());

    // The refused writes changed nothing.
    for (const path of [
      `/policy-sets/${known.policySetId}`,
      `/workspaces/${known.workspaceId}`,
      `/runs/${known.runId}`,
    ]) {
      expect((await owner.get(path)).status, path).toBe(200);
    }
    expect(
      (await owner.get(`/policy-sets/${known.policySetId}`)).body.data.attributes.description,
    ).toBeNull();
    expect((await t.admin.get(`/admin/organizations/${org}`)).status).toBe(200);
    // The upload URL was not spent; relays and consumers survived: the outcome reaches policy-sets.
    expect((await putArchive(version.upload, await policyArchive())).status).toBe(200);
    expect((await settledVersion(owner, version.id, 30_000)).attributes.status).toBe('ready');
    expect((await requestWithin(DEADLINE_MS, `${system.opsUrl}/readyz`, { method: 'GET' })).status).toBe(200);
  }, 120_000);

  it('answers 503, never 500, while Postgres is up but refuses connections, and recovers by itself', async () => {
    const version = await pendingVersion(owner, org);
    const unseen = await createUser(t, 'refused');
    const load = driveLoad(3, createAndList);
    await waitFor(async () => load.outcomes.filter((o) => o.status === 201).length >= 3, 30_000);

    // "database is not currently accepting connections" for new connections, and "terminating
    // connection due to administrator command" for the open ones.
    await postgres.refuseConnections();
    await waitFor(
      async () => (await call('GET', `/organizations/${org}/policy-sets`)).status === 503,
      DEADLINE_MS,
    );
    const during = await callEveryRoute(version, unseen.token);
    expect(during.filter((o) => !isCleanUnavailable(o))).toEqual([]);
    const notReady = await readyz();
    expect(notReady.status).toBe(503);
    for (const service of ['admin-orgs', 'policy-sets', 'runs', 'storage']) {
      expect(notReady.body.checks[`${service}.database`], service).toEqual({
        status: 'down',
        required: true,
        detail: expect.stringContaining('not currently accepting connections'),
      });
    }
    expect(notReady.body.checks.gateway).toEqual({ status: 'up', required: true });

    await postgres.acceptConnections();
    await waitFor(
      async () => (await call('GET', `/organizations/${org}/policy-sets`)).status === 200,
      60_000,
      250,
    );
    const outcomes = await load.stop();
    // Under load: only successes and clean 503s with Retry-After; not a single 500.
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 201 && !isCleanUnavailable(o))).toEqual(
      [],
    );
    expect(outcomes.some(isCleanUnavailable)).toBe(true);
    expect((await putArchive(version.upload, await policyArchive())).status).toBe(200);
    expect((await settledVersion(owner, version.id, 30_000)).attributes.status).toBe('ready');
    const ready = await waitFor(async () => {
      const r = await readyz();
      return r.status === 200 ? r : undefined;
    }, 30_000);
    expect(ready.body.checks['storage.outbox']).toMatchObject({ status: 'up', pending: 0 });
  }, 120_000);
});
