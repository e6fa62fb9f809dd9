import type { Migration } from '@policyhub/db';

/**
 * Tables every service gets in its own schema: the outbox it publishes from, the events its
 * consumers have processed (exactly-once effects), and dead letters operators can inspect.
 */
export const eventMigrations: Migration[] = [
  {
    name: '0000_create_event_tables',
    sql: `
      CREATE TABLE outbox (
        id bigserial PRIMARY KEY,
        event_id uuid NOT NULL UNIQUE,
        topic text NOT NULL,
        key text NOT NULL,
        payload bytea NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz
      );
      CREATE INDEX outbox_unsent ON outbox (id) WHERE sent_at IS NULL;

      CREATE TABLE processed_events (
        consumer text NOT NULL,
        event_id uuid NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      );

      CREATE TABLE dead_letters (
        id bigserial PRIMARY KEY,
        consumer text NOT NULL,
        topic text NOT NULL,
        event_id uuid NOT NULL,
        key text NOT NULL,
        payload bytea NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        error text NOT NULL,
        attempts int NOT NULL,
        failed_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (consumer, event_id)
      );
    `,
  },
  {
    // Retention deletes by age in small batches, so each table needs its age indexed; operators
    // ask for replays by setting replay_requested_at, which the consumer looks for (ADR 0022).
    // Built once, at the upgrade: it holds a write lock on each table while the index is built.
    name: '0000_add_event_retention_and_replay',
    sql: `
      CREATE INDEX outbox_sent_at ON outbox (sent_at) WHERE sent_at IS NOT NULL;
      CREATE INDEX processed_events_processed_at ON processed_events (processed_at);
      ALTER TABLE dead_letters ADD COLUMN replay_requested_at timestamptz;
      CREATE INDEX dead_letters_replay_requested ON dead_letters (consumer, id)
        WHERE replay_requested_at IS NOT NULL;
    `,
  },
];
