import type { Db } from '@policyhub/db';
import type { Logger } from '@policyhub/telemetry';
import { DeclarationBackfillRepository } from '../db/declaration-backfill-repository.js';
import type { ArchiveDeclarations } from '../domain/ports.js';
import { archiveLayoutFor } from '../domain/versions.js';

export interface DeclarationBackfillOptions {
  db: Db;
  declarations: ArchiveDeclarations;
  logger: Logger;
  /** Between rounds (one round at start). */
  intervalMs?: number;
  /** Versions read per round. */
  batchSize?: number;
  /** A version that could not be read is tried again after this, doubling per failure… */
  retryAfterMs?: number;
  /** …up to this. */
  maxRetryAfterMs?: number;
}

export interface BackfillRound {
  recorded: number;
  failed: number;
}

/**
 * Records the declaration of ready versions that have none: those that became ready before
 * storage reported what archives declare (docs/adr/0057). Storage reads each stored archive again
 * with the upload's parser; the answer is stored only while the version still has no declaration,
 * so rounds (and replicas) may overlap harmlessly. Sets' current versions go first. A version that
 * cannot be read stays as it is (its checks keep ending errored) and is tried again later, with a
 * growing delay. Runs in the background: start() never waits for a round.
 */
export class DeclarationBackfill {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<BackfillRound> | undefined;
  private stopped = false;
  /** Versions that failed: how often, and not before when they are tried again. */
  private readonly failures = new Map<string, { count: number; notBefore: number }>();
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly retryAfterMs: number;
  private readonly maxRetryAfterMs: number;

  constructor(private readonly options: DeclarationBackfillOptions) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.batchSize = options.batchSize ?? 20;
    this.retryAfterMs = options.retryAfterMs ?? 60_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 3_600_000;
  }

  /** A round now, then one every interval; never throws. */
  start(): void {
    this.stopped = false;
    const tick = () => {
      this.timer = undefined;
      void this.runOnce().finally(() => {
        if (!this.stopped) {
          this.timer = setTimeout(tick, this.intervalMs);
          this.timer.unref();
        }
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }

  /**
   * One round, after any round under way (rounds never overlap, and a round asked for sees every
   * change made before it was asked for); logs its counts, never throws.
   */
  runOnce(): Promise<BackfillRound> {
    const round = (this.running ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.round())
      .catch((err: unknown) => {
        this.options.logger.warn({ err }, 'the declaration backfill round failed; it is tried again later');
        return { recorded: 0, failed: 0 };
      });
    this.running = round;
    void round.finally(() => {
      if (this.running === round) this.running = undefined;
    });
    return round;
  }

  private async round(): Promise<BackfillRound> {
    const { db, declarations, logger } = this.options;
    const now = Date.now();
    const waiting = [...this.failures].filter(([, f]) => f.notBefore > now).map(([id]) => id);
    const repo = new DeclarationBackfillRepository(db);
    const rows = await repo.withoutDeclaration(waiting, this.batchSize);
    const result: BackfillRound = { recorded: 0, failed: 0 };
    for (const version of rows) {
      if (this.stopped) break;
      try {
        const answer = await declarations.read({
          objectKey: version.object_key,
          ...archiveLayoutFor({ kind: version.kind, policiesPath: version.policies_path }),
        });
        if (!answer.ok) throw new Error(answer.reason);
        // Recorded meanwhile (by another round or replica, or a new upload): nothing to count.
        if (await repo.record(version.id, answer.declaration)) result.recorded++;
        this.failures.delete(version.id);
      } catch (err) {
        const count = (this.failures.get(version.id)?.count ?? 0) + 1;
        const delay = Math.min(this.retryAfterMs * 2 ** (count - 1), this.maxRetryAfterMs);
        this.failures.set(version.id, { count, notBefore: Date.now() + delay });
        result.failed++;
        logger.warn(
          { err, versionId: version.id, attempts: count, retryInMs: delay },
          'could not record what a version archive declares; its checks stay errored until it is read',
        );
      }
    }
    if (result.recorded > 0 || result.failed > 0) {
      logger.info(result, 'declaration backfill: versions uploaded before declarations were recorded');
    }
    return result;
  }
}
