import { decodeMessage } from '@policyhub/contracts';
import type { Db } from '@policyhub/db';
import { topicByName } from './topics.js';

/** A dead letter as operators see it (`npm run dead-letters`, docs/adr/0022-event-retention-and-replay.md). */
export interface DeadLetter {
  id: number;
  consumer: string;
  topic: string;
  eventId: string;
  key: string;
  error: string;
  attempts: number;
  failedAt: string;
  /** Set while a replay is waiting for the consumer to pick it up. */
  replayRequestedAt: string | null;
}

export interface DeadLetterDetail extends DeadLetter {
  headers: Record<string, string>;
  /** The payload decoded with its topic's protobuf type, or why it could not be. */
  payload: Record<string, unknown> | { undecodable: string; base64: string };
}

export type ReplayOutcome =
  | { id: number; outcome: 'applied' }
  | { id: number; outcome: 'failed'; error: string }
  | { id: number; outcome: 'pending' };

interface Row {
  id: number;
  consumer: string;
  topic: string;
  event_id: string;
  key: string;
  error: string;
  attempts: number;
  failed_at: string;
  replay_requested_at: string | null;
}

const COLUMNS = 'id, consumer, topic, event_id, key, error, attempts, failed_at, replay_requested_at';

const toDeadLetter = (r: Row): DeadLetter => ({
  id: r.id,
  consumer: r.consumer,
  topic: r.topic,
  eventId: r.event_id,
  key: r.key,
  error: r.error,
  attempts: r.attempts,
  failedAt: r.failed_at,
  replayRequestedAt: r.replay_requested_at,
});

/**
 * The operator's handle on one service's dead letters. A replay is only a request: the service's
 * own consumer picks it up and applies it on its normal path (exactly once, through
 * processed_events), removing the dead letter in the same transaction; nothing here touches the
 * consumer's effects.
 */
export class DeadLetterStore {
  constructor(private readonly db: Db) {}

  async list(filter: { consumer?: string | undefined; limit?: number } = {}): Promise<DeadLetter[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM dead_letters WHERE ($1::text IS NULL OR consumer = $1)
        ORDER BY id LIMIT $2`,
      [filter.consumer ?? null, filter.limit ?? 100],
    );
    return rows.map(toDeadLetter);
  }

  async show(id: number): Promise<DeadLetterDetail | undefined> {
    const { rows } = await this.db.query<Row & { payload: Buffer; headers: Record<string, string> }>(
      `SELECT ${COLUMNS}, payload, headers FROM dead_letters WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    return { ...toDeadLetter(row), headers: row.headers, payload: decodePayload(row.topic, row.payload) };
  }

  /** Asks the consumer to replay these dead letters; resolves with the ids that exist. */
  async requestReplay(ids: number[]): Promise<number[]> {
    const { rows } = await this.db.query<{ id: number }>(
      'UPDATE dead_letters SET replay_requested_at = now() WHERE id = ANY($1::bigint[]) RETURNING id',
      [ids],
    );
    return rows.map((r) => r.id).sort((a, b) => a - b);
  }

  /** Asks for a replay of every dead letter (of one consumer, if given). */
  async requestReplayAll(consumer?: string): Promise<number[]> {
    const { rows } = await this.db.query<{ id: number }>(
      `UPDATE dead_letters SET replay_requested_at = now()
        WHERE ($1::text IS NULL OR consumer = $1) RETURNING id`,
      [consumer ?? null],
    );
    return rows.map((r) => r.id).sort((a, b) => a - b);
  }

  /** Removes a dead letter for good (its event is never applied); resolves with what was removed. */
  async discard(id: number): Promise<DeadLetter | undefined> {
    const { rows } = await this.db.query<Row>(`DELETE FROM dead_letters WHERE id = $1 RETURNING ${COLUMNS}`, [
      id,
    ]);
    return rows[0] && toDeadLetter(rows[0]);
  }

  /**
   * Waits until each requested replay has an outcome: applied (the dead letter is gone), failed
   * again (its attempts grew; the new error is returned), or still pending when `timeoutMs` ends.
   */
  async awaitReplays(
    ids: number[],
    before: Map<number, number>,
    options: { timeoutMs: number; pollMs?: number },
  ): Promise<ReplayOutcome[]> {
    const until = Date.now() + options.timeoutMs;
    for (;;) {
      const { rows } = await this.db.query<{ id: number; attempts: number; error: string }>(
        'SELECT id, attempts, error FROM dead_letters WHERE id = ANY($1::bigint[])',
        [ids],
      );
      const now = new Map(rows.map((r) => [r.id, r]));
      const outcomes = ids.map((id): ReplayOutcome => {
        const row = now.get(id);
        if (!row) return { id, outcome: 'applied' };
        if (row.attempts > (before.get(id) ?? 0)) return { id, outcome: 'failed', error: row.error };
        return { id, outcome: 'pending' };
      });
      if (outcomes.every((o) => o.outcome !== 'pending') || Date.now() >= until) return outcomes;
      await new Promise((r) => setTimeout(r, options.pollMs ?? 250));
    }
  }

  /** Attempts so far of each dead letter, to tell a new failure from the old one. */
  async attempts(ids: number[]): Promise<Map<number, number>> {
    const { rows } = await this.db.query<{ id: number; attempts: number }>(
      'SELECT id, attempts FROM dead_letters WHERE id = ANY($1::bigint[])',
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.attempts]));
  }
}

function decodePayload(topicName: string, payload: Buffer): DeadLetterDetail['payload'] {
  const topic = topicByName(topicName);
  const base64 = payload.toString('base64');
  if (!topic) return { undecodable: `unknown topic ${topicName}`, base64 };
  try {
    return decodeMessage<Record<string, unknown>>(topic.type, payload);
  } catch (err) {
    return { undecodable: (err as Error).message, base64 };
  }
}
