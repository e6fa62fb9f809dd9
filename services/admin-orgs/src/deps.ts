import type { Db } from '@policyhub/db';
import type { OutboxRelay } from '@policyhub/events';

/** What admin-orgs' use cases get; service.ts builds it once. */
export interface Deps {
  db: Db;
  /** Flushed after a transaction that wrote events, so they leave promptly. */
  relay: OutboxRelay;
}
