import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { InProcessTransport, TOPICS } from '@policyhub/events';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm start`'s in-process bus is safe only because every consumer runs in the one process: the
 * bus marks an event nobody subscribed to as sent only for topics no service consumes
 * (TOPICS[…].consumedBy, ADR 0022). These lists must stay true to what the services subscribe.
 */
let db: TestDatabase;
let dataDir: string;
let system: RunningSystem;
const lines: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase('ph_embedded_events');
  dataDir = mkdtempSync(join(tmpdir(), 'policyhub-embedded-events-'));
  const logs = new PassThrough();
  logs.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  system = await startSystem({
    port: 0,
    validateResponses: true,
    dataDir,
    databaseUrl: db.url,
    logLevel: 'info',
    logDestination: logs,
  });
}, 120_000);
afterAll(async () => {
  await system?.close();
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('events in embedded mode', () => {
  it('subscribes exactly the consumers each topic declares', () => {
    expect(system.transport).toBeInstanceOf(InProcessTransport);
    const subscriptions = (system.transport as InProcessTransport).subscriptions();
    // Consumer groups are named `<service>.<what>` (or just the service).
    const consumersOf = (topic: string) =>
      [
        ...new Set(
          [...subscriptions].filter(([, topics]) => topics.includes(topic)).map(([g]) => g.split('.')[0]),
        ),
      ].sort();
    for (const topic of Object.values(TOPICS)) {
      expect(consumersOf(topic.name), topic.name).toEqual([...topic.consumedBy].sort());
    }
    const known = new Set<string>(Object.values(TOPICS).map((t) => t.name));
    expect([...subscriptions.values()].flat().filter((t) => !known.has(t))).toEqual([]);
  });

  it('logs that it runs embedded with in-process events', () => {
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'event bus');
    expect(line).toMatchObject({ mode: 'embedded', events: 'in-process' });
  });

  it('reports every dependency of every service on /readyz', async () => {
    const res = await fetch(`${system.opsUrl}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; checks: Record<string, { status: string }> };
    expect(body.status).toBe('ready');
    expect(Object.keys(body.checks).sort()).toEqual(
      [
        'gateway',
        ...['admin-orgs', 'policy-sets', 'runs', 'storage'].flatMap((s) => [
          `${s}.bus`,
          `${s}.database`,
          `${s}.outbox`,
        ]),
      ].sort(),
    );
    expect(Object.values(body.checks).every((c) => c.status === 'up')).toBe(true);
  });
});
