import type { Db } from '@policyhub/db';
import type { Logger } from '@policyhub/telemetry';
import { ObjectDeletionRepository } from '../db/object-deletion-repository.js';
import type { ObjectStore } from '../domain/ports.js';

const BATCH = 100;

/**
 * Deletes stored objects of deleted runs. Deletions are queued in object_deletions by the
 * transaction that deleted the runs; this sweeper asks storage to delete them and forgets a
 * prefix only once storage confirmed, so an unavailable storage service delays, never loses.
 */
export class ObjectSweeper {
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly options: {
      db: Db;
      objects: ObjectStore;
      logger: Logger;
      intervalMs?: number;
      delayMs?: number;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep(), this.options.intervalMs ?? 30_000);
    this.timer.unref();
    this.schedule();
  }

  /** Sweeps shortly (after the transaction that queued deletions has committed). */
  schedule(): void {
    if (this.stopped || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.sweep();
    }, this.options.delayMs ?? 1_000);
    this.soon.unref();
  }

  sweep(): Promise<void> {
    this.running ??= this.sweepOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sweepOnce(): Promise<void> {
    const repo = new ObjectDeletionRepository(this.options.db);
    try {
      const prefixes = await repo.pending(BATCH);
      if (prefixes.length === 0) return;
      try {
        await this.options.objects.deletePrefixes(prefixes);
        await repo.remove(prefixes);
      } catch (err) {
        await repo.countAttempt(prefixes);
        this.options.logger.warn(
          { err, count: prefixes.length },
          'deleting objects of deleted runs failed; will retry',
        );
      }
    } catch (err) {
      this.options.logger.warn({ err }, 'object sweep failed; will retry');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    await this.running;
  }
}
