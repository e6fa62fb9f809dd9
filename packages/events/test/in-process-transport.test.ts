import { describe, expect, it } from 'vitest';
import { type BusMessage, InProcessTransport, NoConsumerInProcessError, TOPICS } from '../src/index.js';

const message = (topic: string, eventId: string): BusMessage => ({
  topic,
  key: 'k',
  eventId,
  payload: Buffer.alloc(0),
  headers: {},
});

describe('in-process transport', () => {
  it('delivers to every subscribed group and resolves publish after the handlers finish', async () => {
    const t = new InProcessTransport();
    const seen: string[] = [];
    await t.subscribe('a', ['x'], async (m) => void seen.push(`a:${m.eventId}`));
    await t.subscribe('b', ['x'], async (m) => void seen.push(`b:${m.eventId}`));
    await t.publish([message('x', 'e1')]);
    expect(seen.sort()).toEqual(['a:e1', 'b:e1']);
  });

  it('refuses an event whose consumers are not in this process, delivering nothing of the batch', async () => {
    // A process hosting storage alone: policy-sets and runs, which consume uploads, are elsewhere.
    const t = new InProcessTransport();
    const seen: string[] = [];
    await t.subscribe('storage.deletions', [TOPICS.policySetDeleted.name], async (m) => {
      seen.push(m.eventId);
    });
    const batch = [message(TOPICS.policySetDeleted.name, 'e1'), message(TOPICS.uploadCompleted.name, 'e2')];

    // The relay then leaves both outbox rows unsent and tries again later: nothing is lost.
    await expect(t.publish(batch)).rejects.toBeInstanceOf(NoConsumerInProcessError);
    await expect(t.publish(batch)).rejects.toThrow(/storage\.upload-completed.*KAFKA_BROKERS/);
    expect(seen).toEqual([]);
    // Unknown topics count as consumed somewhere, so they are refused too.
    await expect(t.publish([message('someone.elses-topic', 'e3')])).rejects.toBeInstanceOf(
      NoConsumerInProcessError,
    );
  });

  it('accepts an event no service consumes, and delivers once a consumer is there', async () => {
    const t = new InProcessTransport();
    expect(TOPICS.orgSharingChanged.consumedBy).toEqual([]);
    await expect(t.publish([message(TOPICS.orgSharingChanged.name, 'e1')])).resolves.toBeUndefined();

    const seen: string[] = [];
    await t.subscribe('policy-sets.upload-completed', [TOPICS.uploadCompleted.name], async (m) => {
      seen.push(m.eventId);
    });
    await t.publish([message(TOPICS.uploadCompleted.name, 'e2')]);
    expect(seen).toEqual(['e2']);
  });

  it('is reachable for readiness only while open', async () => {
    const t = new InProcessTransport({ held: true });
    await expect(t.probe()).rejects.toThrow(/not open yet/);
    t.open();
    await expect(t.probe()).resolves.toBeUndefined();
    await t.close();
    await expect(t.probe()).rejects.toThrow(/closed/);
  });
});
