import { randomUUID } from 'node:crypto';
import { createLogger } from '@policyhub/telemetry';
import { type MockKafka, startMockKafka, waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BusMessage,
  createTransport,
  DEAD_LETTER_SUFFIX,
  InProcessTransport,
  KafkaTransport,
} from '../src/index.js';
import { describeTransportContract } from './transport-contract.js';

// A real Kafka-protocol broker (librdkafka's mock cluster), started once for this file. Group joins
// take about 3 s on it, so the contract reuses one transport and subscribes groups in parallel.
let broker: MockKafka;
const logger = createLogger('events-test', process.env.LOG_LEVEL ?? 'error');
const newTransport = () => new KafkaTransport({ brokers: broker.brokers, clientId: 'events-test', logger });

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
  it('copies a dead-lettered message to <topic>.dead-letter with its error', async () => {
    const transport = newTransport();
    try {
      const topic = `kafka.dead-letter-source.${randomUUID()}`;
      const seen: BusMessage[] = [];
      await transport.subscribe(`operators.${randomUUID()}`, [`${topic}${DEAD_LETTER_SUFFIX}`], async (m) => {
        seen.push(m);
      });
      const message: BusMessage = {
        topic,
        key: 'aggregate-1',
        eventId: randomUUID(),
        payload: Buffer.from('payload'),
        headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      };

      await transport.publishDeadLetter(message, new Error('payload does not decode'));

      const copy = await waitFor(async () => seen.find((m) => m.eventId === message.eventId), 20_000);
      expect(copy).toMatchObject({
        topic: `${topic}${DEAD_LETTER_SUFFIX}`,
        key: 'aggregate-1',
        headers: {
          traceparent: message.headers.traceparent,
          'event-id': message.eventId,
          'dead-letter-error': 'Error: payload does not decode',
        },
      });
      expect(copy.payload.toString()).toBe('payload');
    } finally {
      await transport.close();
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
    const kafka = createTransport({ brokers: broker.brokers, clientId: 'events-test', logger });
    expect(kafka).toBeInstanceOf(KafkaTransport);
    await kafka.close();
    expect(createTransport({ clientId: 'events-test', logger })).toBeInstanceOf(InProcessTransport);
    expect(createTransport({ brokers: [' '], clientId: 'events-test', logger })).toBeInstanceOf(
      InProcessTransport,
    );
  });
});
