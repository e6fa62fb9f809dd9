import { randomUUID } from 'node:crypto';
import { createLogger } from '@policyhub/telemetry';
import { freePort, type MockKafka, startMockKafka } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport, InProcessTransport, KafkaTransport } from '../src/index.js';
import { describeTransportContract } from './transport-contract.js';

// A real Kafka-protocol broker (librdkafka's mock cluster), started once for this file. Group joins
// take about 3 s on it, so the contract reuses one transport and subscribes groups in parallel.
let broker: MockKafka;
const logger = createLogger('events-test', process.env.LOG_LEVEL ?? 'error');
// The mock broker has no idempotent producer: off here, on by default elsewhere.
const newTransport = () =>
  new KafkaTransport({ brokers: broker.brokers, clientId: 'events-test', logger, idempotent: false });

beforeAll(async () => {
  broker = await startMockKafka();
});

afterAll(async () => {
  await broker?.stop();
});

describeTransportContract('kafka', async () => {
  const transport = newTransport();
  return { transport, cleanup: () => transport.close() };
});

describe('kafka transport', () => {
  it('answers a readiness probe while the brokers answer, and says why when they do not', async () => {
    const transport = newTransport();
    try {
      await expect(transport.probe()).resolves.toBeUndefined();
    } finally {
      await transport.close();
    }
    const port = await freePort();
    const nowhere = new KafkaTransport({ brokers: [`127.0.0.1:${port}`], clientId: 'events-test', logger });
    try {
      await expect(nowhere.probe()).rejects.toThrow(/ECONNREFUSED|Connection error|no answer/);
    } finally {
      await nowhere.close();
    }
  });

  it('rejects a second subscription of the same group, and publishing after close', async () => {
    const transport = newTransport();
    const group = `twice.${randomUUID()}`;
    const topic = `kafka.twice.${randomUUID()}`;
    await transport.subscribe(group, [topic], async () => {});
    await expect(transport.subscribe(group, [topic], async () => {})).rejects.toThrow(/already subscribed/);
    await transport.close();
    const message = { topic, key: 'k', eventId: randomUUID(), payload: Buffer.alloc(0), headers: {} };
    await expect(transport.publish([message])).rejects.toThrow(/closed/);
  });

  it('createTransport picks Kafka when brokers are configured and in-process otherwise', async () => {
    const kafka = createTransport({
      brokers: broker.brokers,
      clientId: 'events-test',
      logger,
      kafka: { idempotent: false },
    });
    expect(kafka).toBeInstanceOf(KafkaTransport);
    await kafka.close();
    expect(createTransport({ clientId: 'events-test', logger })).toBeInstanceOf(InProcessTransport);
    expect(createTransport({ brokers: [' '], clientId: 'events-test', logger })).toBeInstanceOf(
      InProcessTransport,
    );
  });
});
