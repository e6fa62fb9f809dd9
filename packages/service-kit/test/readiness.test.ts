import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@policyhub/config';
import { Db, runMigrations } from '@policyhub/db';
import {
  enqueueEvent,
  eventMigrations,
  InProcessTransport,
  KafkaTransport,
  OutboxRelay,
  TOPICS,
} from '@policyhub/events';
import { createLogger } from '@policyhub/telemetry';
import { createTestDatabase, freePort, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaClientSettings, kafkaConfigShape } from '../src/event-config.js';
import { serviceReadiness } from '../src/readiness.js';

/**
 * What a service's /readyz says about its database, its bus and its outbox, on a real Postgres,
 * the real in-process bus and a Kafka client pointed at a port where no broker listens.
 */
let database: TestDatabase;
let db: Db;
const logger = createLogger('readiness-test', 'silent');

beforeAll(async () => {
  database = await createTestDatabase('ph_readiness');
  db = new Db({ url: database.url, schema: 'readiness_test' });
  await runMigrations(db, eventMigrations);
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe("a service's readiness", () => {
  it('is ready with its database, bus and outbox up, and says so for each', async () => {
    const transport = new InProcessTransport();
    const relay = new OutboxRelay({ db, transport, logger });
    const report = await serviceReadiness({ db, relay, transport, producesEvents: true });
    expect(report).toEqual({
      ready: true,
      checks: {
        database: { status: 'up', required: true },
        bus: { status: 'up', required: true, kind: 'in-process' },
        outbox: { status: 'up', required: true, pending: 0, oldestPendingSeconds: 0 },
      },
    });
  });

  it('is not ready while its events wait to be published beyond the threshold, and says why', async () => {
    // No consumer of the topic is in this process: the in-process bus refuses, the row waits.
    const transport = new InProcessTransport();
    const relay = new OutboxRelay({ db, transport, logger });
    await db.transaction((tx) =>
      enqueueEvent(tx, TOPICS.uploadCompleted, 'polsetver-1', { ownerId: 'polsetver-1', ok: true }),
    );
    await db.query("UPDATE outbox SET created_at = now() - interval '5 minutes'");
    await relay.flush();

    const stuck = await serviceReadiness({ db, relay, transport, producesEvents: true });
    expect(stuck.ready).toBe(false);
    expect(stuck.checks.outbox).toMatchObject({
      status: 'down',
      required: true,
      pending: 1,
      detail: expect.stringMatching(/more than 60 s: no consumer of storage.upload-completed/),
    });
    expect(Number(stuck.checks.outbox?.oldestPendingSeconds)).toBeGreaterThanOrEqual(300);

    // Reported, not required: the body still names it, the answer stays ready.
    const reported = await serviceReadiness(
      { db, relay, transport, producesEvents: true },
      { events: 'reported' },
    );
    expect(reported.ready).toBe(true);
    expect(reported.checks.outbox).toMatchObject({ status: 'down', required: false });
    // A service that writes no events is not held back by an outbox either.
    expect((await serviceReadiness({ db, relay, transport, producesEvents: false })).ready).toBe(true);
    await db.query('TRUNCATE outbox');
  });

  it('is not ready, as a producer, while its Kafka brokers cannot be reached', async () => {
    const transport = new KafkaTransport({
      brokers: [`127.0.0.1:${await freePort()}`],
      clientId: 'readiness-test',
      logger,
      idempotent: false,
    });
    const relay = new OutboxRelay({ db, transport, logger });
    try {
      const producer = await serviceReadiness({ db, relay, transport, producesEvents: true });
      expect(producer.ready).toBe(false);
      expect(producer.checks.bus).toMatchObject({
        status: 'down',
        required: true,
        detail: expect.stringMatching(/ECONNREFUSED|Connection error/),
      });
      const consumerOnly = await serviceReadiness({ db, relay, transport, producesEvents: false });
      expect(consumerOnly.ready).toBe(true);
      expect(consumerOnly.checks.bus).toMatchObject({ status: 'down', required: false });
    } finally {
      await transport.close();
    }
  });

  it('is not ready when its database refuses connections, naming the database', async () => {
    const unreachable = new Db({
      url: `postgres://postgres@127.0.0.1:${await freePort()}/nowhere`,
      schema: 'readiness_test',
    });
    const transport = new InProcessTransport();
    try {
      const report = await serviceReadiness({
        db: unreachable,
        relay: new OutboxRelay({ db: unreachable, transport, logger }),
        transport,
        producesEvents: false,
      });
      expect(report.ready).toBe(false);
      expect(report.checks.database).toEqual({
        status: 'down',
        required: true,
        detail: expect.stringContaining('ECONNREFUSED'),
      });
    } finally {
      await unreachable.close();
    }
  });
});

describe('Kafka client settings', () => {
  const settings = (env: Record<string, string>) => kafkaClientSettings(loadConfig(kafkaConfigShape, env));

  it('default to an idempotent producer without TLS or SASL; tests turn idempotence off', () => {
    expect(settings({})).toEqual({ idempotent: true });
    expect(settings({ KAFKA_IDEMPOTENT: 'false' })).toEqual({ idempotent: false });
  });

  it('take TLS with a CA file and SASL for managed Kafka', () => {
    const ca = join(tmpdir(), `policyhub-test-ca-${process.pid}.pem`);
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(
      settings({
        KAFKA_SSL: 'true',
        KAFKA_SSL_CA_FILE: ca,
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: 'policyhub',
        KAFKA_SASL_PASSWORD: 'secret',
      }),
    ).toEqual({
      idempotent: true,
      ssl: { ca: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'] },
      sasl: { mechanism: 'scram-sha-512', username: 'policyhub', password: 'secret' },
    });
    expect(settings({ KAFKA_SSL: 'true' })).toEqual({ idempotent: true, ssl: true });
  });

  it('refuse incomplete or contradictory settings at start, one line per problem, no secret shown', () => {
    const problems = (env: Record<string, string>) => {
      try {
        settings(env);
        return [];
      } catch (err) {
        return (err as { problems: string[] }).problems;
      }
    };
    expect(problems({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'hunter2' })).toEqual([
      'KAFKA_SASL_USERNAME: is required with KAFKA_SASL_MECHANISM=plain (unset)',
    ]);
    expect(problems({ KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'hunter2' })).toEqual([
      'KAFKA_SASL_MECHANISM: is required with KAFKA_SASL_USERNAME/PASSWORD (unset)',
    ]);
    expect(problems({ KAFKA_SSL_CA_FILE: '/nonexistent/ca.pem' })).toEqual([
      'KAFKA_SSL_CA_FILE: needs KAFKA_SSL=true',
      'KAFKA_SSL_CA_FILE: cannot be read: ENOENT (got "/nonexistent/ca.pem")',
    ]);
    expect(() => settings({ KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow(
      /KAFKA_SASL_MECHANISM: must be plain, scram-sha-256 or scram-sha-512/,
    );
    expect(
      JSON.stringify(problems({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'hunter2' })),
    ).not.toContain('hunter2');
  });
});
