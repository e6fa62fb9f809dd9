import { messageRoot } from '@policyhub/contracts';
import { describe, expect, it } from 'vitest';
import { TOPICS } from '../src/index.js';

// The outbox stamps every event with occurred_at as a google.protobuf.Timestamp and consumers read
// it as one (ADR 0035); a topic whose message declared it otherwise would fail to encode.
describe('event topics', () => {
  it('every topic message has event_id and a Timestamp occurred_at', () => {
    const offenders = Object.values(TOPICS).flatMap((topic) => {
      const fields = messageRoot().lookupType(topic.type).fields;
      const ok =
        fields.eventId?.type === 'string' &&
        fields.occurredAt?.resolve().resolvedType?.fullName === '.google.protobuf.Timestamp';
      return ok ? [] : [topic.type];
    });
    expect(Object.keys(TOPICS).length).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
  });
});
