import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { encodeMessage, toTimestamp } from '@policyhub/contracts';
import type { Queryable } from '@policyhub/db';
import type { Topic } from './topics.js';

export interface EnqueuedEvent {
  eventId: string;
  occurredAt: string;
}

/**
 * Writes an event to the service's outbox inside the caller's transaction, so the state change
 * and the event commit together. `event_id` and `occurred_at` (a
 * google.protobuf.Timestamp in every event, ADR 0035) are filled in here. The current
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
  const bytes = encodeMessage(topic.type, { ...payload, eventId, occurredAt: toTimestamp(now) });
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
