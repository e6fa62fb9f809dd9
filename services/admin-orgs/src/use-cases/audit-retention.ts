import type { Logger } from '@policyhub/telemetry';
import { AuditRepository } from '../db/audit-repository.js';
import type { Deps } from '../deps.js';

/** How long audit records are kept and how often the sweep runs (AUDIT_RETENTION_*). */
export interface AuditRetentionSettings {
  /** Records older than this many days are deleted; 0 keeps them for ever. */
  days: number;
  intervalMs: number;
}

export const DEFAULT_AUDIT_RETENTION: AuditRetentionSettings = { days: 365, intervalMs: 60 * 60 * 1000 };

/** Rows per DELETE: short transactions, row locks only. */
const BATCH_SIZE = 1000;
/** Upper bound of batches per sweep, so one sweep cannot go on for ever. */
const MAX_BATCHES = 500;

/**
 * The audit trail's retention: every `intervalMs`, records older than `days` are deleted in
 * batches (replicas sweeping at once skip each other's rows). The trail is the only copy of who
 * did what, so nothing else deletes from it, not even an organization's deletion.
 */
export class AuditRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly deps: Pick<Deps, 'db'>,
    readonly settings: AuditRetentionSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.settings.days <= 0) return;
    this.timer = setInterval(() => void this.sweepGuarded(), this.settings.intervalMs);
    this.timer.unref();
  }

  /** One sweep now: the number of records deleted. */
  async sweep(): Promise<number> {
    if (this.settings.days <= 0) return 0;
    const audit = new AuditRepository(this.deps.db);
    let deleted = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await audit.deleteOlderThan(this.settings.days, BATCH_SIZE);
      deleted += n;
      if (n < BATCH_SIZE) break;
    }
    if (deleted > 0)
      this.logger.info({ deleted, days: this.settings.days }, 'audit records past retention deleted');
    return deleted;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async sweepGuarded(): Promise<void> {
    if (this.running) return;
    this.running = this.sweep()
      .catch((err: unknown) =>
        this.logger.warn({ err }, 'audit retention sweep failed; retrying at the next interval'),
      )
      .finally(() => {
        this.running = undefined;
      });
    await this.running;
  }
}
