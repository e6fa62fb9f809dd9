import { randomUUID } from 'node:crypto';
import { waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage, EventTransport, MessageHandler } from '../src/index.js';

export interface TransportUnderTest {
  transport: EventTransport;
  cleanup(): Promise<void>;
}

const DELIVERY_TIMEOUT_MS = 20_000;
let sequence = 0;

/** Topic and group names no other test (or earlier run against the same broker) uses. */
const uniqueName = (what: string) =>
  `contract.${what}.${process.pid}.${Date.now().toString(36)}.${++sequence}`;

function busMessage(
  topic: string,
  key: string,
  body: string,
  headers: Record<string, string> = {},
): BusMessage {
  return { topic, key, eventId: randomUUID(), payload: Buffer.from(body), headers };
}

/** Records what a group's handler received, in order. */
function recorder() {
  const received: BusMessage[] = [];
  const handler: MessageHandler = async (message) => {
    received.push(message);
  };
  const eventIds = () => received.map((m) => m.eventId);
  return { received, handler, eventIds };
}

/** Publishes as the outbox relay does: a rejected publish is sent again until it is accepted. */
async function publishAsRelay(transport: EventTransport, messages: BusMessage[]): Promise<void> {
  await waitFor(async () => {
    await transport.publish(messages);
    return true;
  }, DELIVERY_TIMEOUT_MS);
}

const hasAll = (seen: string[], expected: string[]) => expected.every((id) => seen.includes(id));
const firstOccurrences = (ids: string[]) => [...new Set(ids)];

/**
 * The EventTransport contract (see src/transport.ts), run against every implementation.
 * `makeTransport` is called once for the shared instance and once more by the close test.
 */
export function describeTransportContract(
  name: string,
  makeTransport: () => Promise<TransportUnderTest>,
): void {
  describe(`${name} transport contract`, () => {
    let subject: TransportUnderTest;
    const transport = () => subject.transport;

    beforeAll(async () => {
      subject = await makeTransport();
    });

    afterAll(async () => {
      await subject?.cleanup();
    });

    it('delivers every message on the subscribed topics with its key, payload, event id and headers', async () => {
      const [orders, invoices, other] = [uniqueName('orders'), uniqueName('invoices'), uniqueName('other')];
      const group = recorder();
      await Promise.all([
        transport().subscribe(uniqueName('group'), [orders, invoices], group.handler),
        // Someone else's topic: the group must not see it (nor may the in-process bus refuse it).
        transport().subscribe(uniqueName('bystander'), [other], recorder().handler),
      ]);

      const headers = {
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        'x-origin': 'test',
      };
      const ignored = busMessage(other, 'k0', 'not for this group');
      const first = busMessage(orders, 'order-1', 'first', headers);
      const second = busMessage(invoices, 'invoice-1', 'second');
      await expect(transport().publish([ignored, first, second])).resolves.toBeUndefined();

      await waitFor(
        async () => hasAll(group.eventIds(), [first.eventId, second.eventId]),
        DELIVERY_TIMEOUT_MS,
      );
      const got = (id: string) => group.received.find((m) => m.eventId === id);
      expect(got(first.eventId)).toMatchObject({
        topic: orders,
        key: 'order-1',
        headers: expect.objectContaining(headers),
      });
      expect(got(first.eventId)?.payload.toString()).toBe('first');
      expect(got(second.eventId)).toMatchObject({ topic: invoices, key: 'invoice-1' });
      expect(got(second.eventId)?.payload.toString()).toBe('second');
      expect(group.eventIds()).not.toContain(ignored.eventId);
    });

    it('resolves publish of an empty batch', async () => {
      await expect(transport().publish([])).resolves.toBeUndefined();
    });

    it('gives every subscribed group every message, independently of the other groups', async () => {
      const topic = uniqueName('shared');
      const [billing, audit] = [recorder(), recorder()];
      await Promise.all([
        transport().subscribe(uniqueName('billing'), [topic], billing.handler),
        transport().subscribe(uniqueName('audit'), [topic], audit.handler),
      ]);

      const messages = ['a', 'b', 'c', 'd', 'e'].map((key) => busMessage(topic, key, `body-${key}`));
      await transport().publish(messages);

      const ids = messages.map((m) => m.eventId);
      await waitFor(
        async () => hasAll(billing.eventIds(), ids) && hasAll(audit.eventIds(), ids),
        DELIVERY_TIMEOUT_MS,
      );
      expect(new Set(billing.eventIds())).toEqual(new Set(ids));
      expect(new Set(audit.eventIds())).toEqual(new Set(ids));
    });

    it('delivers messages with the same key in publish order', async () => {
      const topic = uniqueName('ordered');
      const group = recorder();
      await transport().subscribe(uniqueName('group'), [topic], group.handler);

      const keys = ['aggregate-1', 'aggregate-2', 'aggregate-3'];
      const published: BusMessage[] = [];
      const nextBatch = (from: number, to: number) => {
        const batch: BusMessage[] = [];
        for (let n = from; n < to; n++) for (const key of keys) batch.push(busMessage(topic, key, String(n)));
        published.push(...batch);
        return batch;
      };
      await transport().publish(nextBatch(0, 4));
      await transport().publish(nextBatch(4, 5));
      await transport().publish(nextBatch(5, 10));

      await waitFor(
        async () =>
          hasAll(
            group.eventIds(),
            published.map((m) => m.eventId),
          ),
        DELIVERY_TIMEOUT_MS,
      );
      const sequenceOf = (key: string) =>
        firstOccurrences(group.received.filter((m) => m.key === key).map((m) => m.payload.toString()));
      const expected = Array.from({ length: 10 }, (_, n) => String(n));
      for (const key of keys) expect(sequenceOf(key)).toEqual(expected);
    });

    it('gives a message whose handler threw to the handler again', async () => {
      const topic = uniqueName('flaky');
      const attempts: BusMessage[] = [];
      const handled: string[] = [];
      await transport().subscribe(uniqueName('group'), [topic], async (message) => {
        attempts.push(message);
        if (attempts.filter((m) => m.eventId === message.eventId).length === 1)
          throw new Error('database unavailable');
        handled.push(message.eventId);
      });

      const message = busMessage(topic, 'k', 'retry me', { 'x-origin': 'test' });
      await publishAsRelay(transport(), [message]);

      await waitFor(async () => handled.includes(message.eventId), DELIVERY_TIMEOUT_MS);
      const deliveries = attempts.filter((m) => m.eventId === message.eventId);
      expect(deliveries.length).toBeGreaterThanOrEqual(2);
      for (const delivery of deliveries) {
        expect(delivery).toMatchObject({
          key: 'k',
          headers: expect.objectContaining({ 'x-origin': 'test' }),
        });
        expect(delivery.payload.toString()).toBe('retry me');
      }
    });

    it('holds back later messages with the same key until a failed one succeeds', async () => {
      const topic = uniqueName('held-back');
      const failed = new Set<string>();
      const handled: string[] = [];
      const messages = ['1st', '2nd', '3rd'].map((body) => busMessage(topic, 'same-key', body));
      const [first] = messages;
      await transport().subscribe(uniqueName('group'), [topic], async (message) => {
        if (message.eventId === first?.eventId && !failed.has(message.eventId)) {
          failed.add(message.eventId);
          throw new Error('database unavailable');
        }
        handled.push(message.eventId);
      });

      await publishAsRelay(transport(), messages);

      const ids = messages.map((m) => m.eventId);
      await waitFor(async () => hasAll(handled, ids), DELIVERY_TIMEOUT_MS);
      expect(failed.has(first!.eventId)).toBe(true);
      expect(firstOccurrences(handled)).toEqual(ids);
    });

    it('keeps delivering to the other groups after one subscription is closed', async () => {
      const topic = uniqueName('partly-closed');
      const [leaving, staying] = [recorder(), recorder()];
      const [leavingSubscription] = await Promise.all([
        transport().subscribe(uniqueName('leaving'), [topic], leaving.handler),
        transport().subscribe(uniqueName('staying'), [topic], staying.handler),
      ]);

      await expect(leavingSubscription.close()).resolves.toBeUndefined();
      const message = busMessage(topic, 'k', 'after close');
      await transport().publish([message]);

      await waitFor(async () => staying.eventIds().includes(message.eventId), DELIVERY_TIMEOUT_MS);
      expect(leaving.eventIds()).not.toContain(message.eventId);
    });

    it('closes with active subscriptions, closing twice is harmless, and a closed bus fails its probe', async () => {
      const fresh = await makeTransport();
      try {
        const topic = uniqueName('closing');
        const group = recorder();
        await fresh.transport.subscribe(uniqueName('group'), [topic], group.handler);
        const message = busMessage(topic, 'k', 'before close');
        await fresh.transport.publish([message]);
        await waitFor(async () => group.eventIds().includes(message.eventId), DELIVERY_TIMEOUT_MS);
        await expect(fresh.transport.probe()).resolves.toBeUndefined();

        await expect(fresh.transport.close()).resolves.toBeUndefined();
        await expect(fresh.transport.close()).resolves.toBeUndefined();
        // Readiness must not report a closed bus as reachable.
        await expect(fresh.transport.probe()).rejects.toThrow(/closed/);
      } finally {
        await fresh.cleanup();
      }
    });
  });
}
