import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { encodeMessage } from '@policyhub/contracts';
import type { Queryable } from '@policyhub/db';
import type { Topic } from './topics.js';

export interface EnqueuedEvent {
  eventId: string;
  occurredAt: string;
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
  const occurredAt = new Date().toISOString();
  const bytes = encodeMessage(topic.type, { ...payload, eventId, occurredAt });
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  await tx.query('INSERT INTO outbox (event_id, topic, key, payload, headers) VALUES ($1, $2, $3, $4, $5)', [
    eventId,
    topic.name,
    key,
    bytes,
    headers,
  ]);
  await tx.query(`SELECT pg_notify(current_schema() || '_outbox', '')`);
  return { eventId, occurredAt };
}
