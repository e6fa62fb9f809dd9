import type { Db, Queryable } from '@policyhub/db';
import type { Logger } from '@policyhub/telemetry';

/*
 * A wake-up for evaluators: the transaction that queues policy checks or policy evaluations
 * NOTIFYs `<schema>_checks_queued`; Postgres delivers it once that transaction commits (never on
 * rollback), so a listener that claims on it finds the work already there. Evaluators keep
 * polling as a backstop (leases that expire, a lost connection), so the notification is only an
 * acceleration: nothing depends on it arriving.
 */

const SUFFIX = '_checks_queued';

/** Inside the transaction that queues checks or evaluations. */
export async function notifyChecksQueued(tx: Queryable): Promise<void> {
  await tx.query(`SELECT pg_notify(current_schema() || '${SUFFIX}', '')`);
}

export interface QueuedChecksListener {
  close(): Promise<void>;
}

/**
 * Calls `onQueued` whenever a transaction of this schema that queued checks commits. A lost
 * connection is logged and re-established after a second (meanwhile the evaluator polls).
 */
export async function listenForQueuedChecks(
  db: Db,
  logger: Logger,
  onQueued: () => void,
): Promise<QueuedChecksListener> {
  let closed = false;
  let client: Awaited<ReturnType<Db['connectWithoutTimeouts']>> | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    retry = undefined;
    if (closed) return;
    try {
      const c = await db.connectWithoutTimeouts('listen');
      c.on('notification', () => onQueued());
      c.on('error', (err) => {
        if (closed || client !== c) return;
        logger.warn(
          { err: err.message },
          'queued-checks listener lost its connection; polling until it is back',
        );
        client = undefined;
        c.end().catch(() => {});
        retry = setTimeout(() => void connect(), 1_000);
        retry.unref();
      });
      await c.query(`LISTEN ${db.schema}${SUFFIX}`);
      if (closed) {
        await c.end().catch(() => {});
        return;
      }
      client = c;
      // Checks queued while there was no listener are found by the next claim.
      onQueued();
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'queued-checks listener could not connect; polling');
      retry = setTimeout(() => void connect(), 1_000);
      retry.unref();
    }
  };
  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
