import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { encodeMessage, messageRoot, toTimestamp } from '@policyhub/contracts';
import type { Queryable } from '@policyhub/db';
import type { Topic } from './topics.js';

export interface EnqueuedEvent {
  eventId: string;
  occurredAt: string;
}

/**
 * `occurred_at` as the topic's message declares it: a google.protobuf.Timestamp (ADR 0035) or,
 * for events not typed yet, RFC 3339 text.
 */
function occurredAtValue(topic: Topic, now: Date) {
  const field = messageRoot().lookupType(topic.type).fields.occurredAt;
  return field?.resolvedType?.fullName === '.google.protobuf.Timestamp'
    ? toTimestamp(now)
    : now.toISOString();
}

/**
 * Writes an event to the service's outbox inside the caller's transaction, so the state change
 * and the event commit together. `event_id` and `occurred_at` are filled in here. The current
 * trace context is stored with the row so the relay and consumers continue the same trace.
 */
export async function enqueueEvent(
  tx: Queryable,
  topic: Topic,
  key: string,
  payload: Record<string, unknown>,
): Promise<EnqueuedEvent> {
  const eventId = randomUUID();
  const now = new Date();
  const occurredAt = now.toISOString();
  const bytes = encodeMessage(topic.type, { ...payload, eventId, occurredAt: occurredAtValue(topic, now) });
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  // One round trip: the row, and the NOTIFY that wakes the relay once the transaction commits.
  await tx.query(
    `WITH inserted AS (INSERT INTO outbox (event_id, topic, key, payload, headers) VALUES ($1, $2, $3, $4, $5) RETURNING 1)
     SELECT pg_notify(current_schema() || '_outbox', '') FROM inserted`,
    [eventId, topic.name, key, bytes, headers],
  );
  return { eventId, occurredAt };
}
