import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Queryable } from '@policyhub/db';
import { waitFor } from '@policyhub/testing';
import { expect } from 'vitest';
import type { ApiClient } from './api.js';
import { createPolicySet } from './fixtures.js';

/**
 * Probes of the upload pipeline (version → upload → storage.upload-completed → ready) and of the
 * set-deletion cascade (policy-sets.policy-set-deleted → storage), over HTTP and the services'
 * own tables, for tests where those effects arrive asynchronously (Kafka, restarts).
 */

/** Consumer (group) names, as the services register them. */
export const UPLOAD_CONSUMER = 'policy-sets.upload-completed';
export const STORAGE_CONSUMER = 'storage';

/** Generous: a restarted consumer first waits for its Kafka group to rebalance. */
export const SETTLE_TIMEOUT_MS = 60_000;

export interface PendingVersion {
  setId: string;
  id: string;
  upload: string;
}

/** A fresh policy set with one pending version. */
export async function pendingVersion(api: ApiClient, org: string): Promise<PendingVersion> {
  const set = await createPolicySet(api, org);
  const res = await api.post(`/policy-sets/${set.id}/versions`);
  expect(res.status, res.text).toBe(201);
  expect(res.body.data.attributes.status).toBe('pending');
  return { setId: set.id, id: res.body.data.id as string, upload: res.body.data.links.upload as string };
}

export async function versionOf(api: ApiClient, id: string) {
  const res = await api.get(`/policy-set-versions/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Polls the version until its upload outcome is applied (no longer pending). */
export function settledVersion(api: ApiClient, id: string, timeoutMs = SETTLE_TIMEOUT_MS) {
  return waitFor(
    async () => {
      const version = await versionOf(api, id);
      return version.attributes.status === 'pending' ? undefined : version;
    },
    timeoutMs,
    100,
  );
}

/** storage.upload-completed events storage wrote for these versions (at most one each). */
export async function uploadEvents(storage: Queryable, versionIds: string[]) {
  const { rows } = await storage.query<{ key: string; event_id: string; sent_at: string | null }>(
    "SELECT key, event_id, sent_at FROM outbox WHERE topic = 'storage.upload-completed' AND key = ANY($1::text[])",
    [versionIds],
  );
  return rows;
}

/** How many times `consumer` recorded each event (processed_events), by event id. */
export async function processedCounts(db: Queryable, consumer: string, eventIds: string[]) {
  const { rows } = await db.query<{ event_id: string; n: number }>(
    `SELECT event_id, count(*)::int AS n FROM processed_events
      WHERE consumer = $1 AND event_id = ANY($2::uuid[]) GROUP BY event_id`,
    [consumer, eventIds],
  );
  return Object.fromEntries(rows.map((r) => [r.event_id, r.n]));
}

export async function deadLetters(db: Queryable) {
  return (await db.query('SELECT consumer, topic, event_id, error FROM dead_letters')).rows;
}

/** Storage's metadata rows for a set's archives (prefix `<org>/policy-sets/<set>/`). */
export async function storedObjectsOf(storage: Queryable, org: string, setId: string) {
  const { rows } = await storage.query<{ key: string }>('SELECT key FROM objects WHERE key LIKE $1', [
    `${org}/policy-sets/${setId}/%`,
  ]);
  return rows.map((r) => r.key);
}

/** Whether the filesystem object store under `dataDir` holds the object's bytes. */
export const objectFileExists = (dataDir: string, key: string) => existsSync(join(dataDir, 'objects', key));

/** The policy-sets.policy-set-deleted event of a set, from policy-sets' outbox. */
export async function setDeletedEvent(policySets: Queryable, setId: string) {
  const { rows } = await policySets.query<{ event_id: string }>(
    "SELECT event_id FROM outbox WHERE topic = 'policy-sets.policy-set-deleted' AND key = $1",
    [setId],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!.event_id;
}
