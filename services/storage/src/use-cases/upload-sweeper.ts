import { metrics } from '@policyhub/telemetry';
import { SessionRepository } from '../db/session-repository.js';
import type { Deps } from '../deps.js';
import { staleStagingMs } from '../domain/upload-limits.js';
import { expiredSessionOutcome } from '../domain/upload-sessions.js';
import { enqueueUploadCompleted } from '../events/upload-completed.js';
import { StagingFile } from '../objects/staging-file.js';

/** Sessions settled per transaction: short transactions, row locks only. */
const BATCH = 100;
/** Upper bound of batches per pass, so one pass cannot go on for ever behind a flood. */
const MAX_BATCHES_PER_PASS = 100;

export type UploadSweeperOptions = Pick<Deps, 'db' | 'relay' | 'store' | 'logger' | 'stagingDir'> & {
  limits: Pick<Deps['limits'], 'uploadLeaseMs'>;
  /** How often a pass runs (UPLOAD_SWEEP_INTERVAL_SECONDS); one runs at start too. */
  intervalMs: number;
};

export interface SweepResult {
  expiredSessions: number;
  stagingFiles: number;
  objectTemporaries: number;
}

/**
 * What a crash or an unused URL leaves behind (docs/adr/0024):
 * - sessions whose URL expired without an upload and that no live upload holds are marked
 *   expired, and storage.upload-completed (failed, STORAGE_UPLOAD_EXPIRED) goes to the outbox in
 *   the same transaction, so the owner's version becomes `errored` instead of `pending` forever;
 *   an object a dead attempt may have put under the session's key is deleted;
 * - staging files and object store temporaries (partial uploads) no live upload keeps fresh.
 * Runs at start and every `intervalMs`. Replicas share the work: sessions are taken with
 * SKIP LOCKED, and only files no process has touched for two leases are removed.
 */
export class UploadSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SweepResult> | undefined;

  constructor(private readonly options: UploadSweeperOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep().catch(() => {}), this.options.intervalMs);
    this.timer.unref();
    void this.sweep().catch(() => {});
  }

  /** One pass (joins the running one if any). */
  sweep(): Promise<SweepResult> {
    this.running ??= this.sweepOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => {});
  }

  private async sweepOnce(): Promise<SweepResult> {
    const { logger } = this.options;
    const result: SweepResult = { expiredSessions: 0, stagingFiles: 0, objectTemporaries: 0 };
    const steps: Array<[keyof SweepResult, string, () => Promise<number>]> = [
      ['stagingFiles', 'staging_files', () => this.removeStaleStaging()],
      ['objectTemporaries', 'object_temporaries', () => this.removeStaleTemporaries()],
      ['expiredSessions', 'expired_sessions', () => this.expireSessions()],
    ];
    for (const [key, what, step] of steps) {
      try {
        result[key] = await step();
        if (result[key] > 0) metrics.uploadSweeper.inc({ what }, result[key]);
      } catch (err) {
        logger.warn({ err, what }, 'upload sweep step failed; will retry');
      }
    }
    if (result.expiredSessions + result.stagingFiles + result.objectTemporaries > 0) {
      logger.info({ ...result }, 'upload sweep');
    }
    return result;
  }

  private removeStaleStaging(): Promise<number> {
    return StagingFile.removeStale(this.options.stagingDir, staleStagingMs(this.options.limits));
  }

  private async removeStaleTemporaries(): Promise<number> {
    // Live writers keep their temporaries fresh, like staging files (docs/adr/0037).
    return (await this.options.store.removeStaleTemporaries?.(staleStagingMs(this.options.limits))) ?? 0;
  }

  private async expireSessions(): Promise<number> {
    const { db, relay, store, logger } = this.options;
    let expired = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
      const sessions = await db.transaction(async (tx) => {
        const due = await new SessionRepository(tx).expireDue(BATCH);
        for (const session of due) await enqueueUploadCompleted(tx, session, expiredSessionOutcome(session));
        return due;
      });
      expired += sessions.length;
      if (sessions.length > 0) {
        // Nothing was recorded under these keys (the sessions were never used); a put of an
        // attempt that died before recording its outcome may have left bytes there.
        await store
          .delete(sessions.map((s) => s.objectKey))
          .catch((err: unknown) =>
            logger.warn({ err }, 'deleting objects of expired upload sessions failed'),
          );
        await relay.flushWithin();
      }
      if (sessions.length < BATCH) break;
    }
    return expired;
  }
}
