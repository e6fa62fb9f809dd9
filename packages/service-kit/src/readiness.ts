import type { Db } from '@policyhub/db';
import type { EventTransport, OutboxRelay } from '@policyhub/events';
import { type DependencyCheck, type ReadinessReport, readinessReport } from '@policyhub/telemetry';

/** How events weigh in a service's readiness (READYZ_* variables, deploy/README.md). */
export interface ReadinessSettings {
  /**
   * An outbox row waiting longer than this makes a producing service not ready (0: reported
   * only). Default 60 s: far beyond a healthy relay (milliseconds), short enough to notice.
   */
  maxOutboxAgeSeconds: number;
  /**
   * `required`: a producing service whose bus is unreachable or whose outbox is stuck is not
   * ready. `reported`: both appear in the body without changing the answer.
   */
  events: 'required' | 'reported';
}

export const DEFAULT_READINESS: ReadinessSettings = { maxOutboxAgeSeconds: 60, events: 'required' };

/** A dependency that does not answer in this long counts as down (probes time out at 2 s). */
const CHECK_TIMEOUT_MS = 1_500;

export interface ServiceReadinessInputs {
  db: Db;
  relay: OutboxRelay;
  transport: EventTransport;
  /** Whether the service writes events (only then do the bus and its outbox gate readiness). */
  producesEvents: boolean;
}

/**
 * A service is ready when it can reach its database and, if it produces events, when its bus
 * answers and its outbox is not stuck: `database`, `bus` and `outbox` in the body either way.
 */
export async function serviceReadiness(
  inputs: ServiceReadinessInputs,
  settings: Partial<ReadinessSettings> = {},
): Promise<ReadinessReport> {
  const { maxOutboxAgeSeconds, events } = { ...DEFAULT_READINESS, ...settings };
  const eventsRequired = inputs.producesEvents && events === 'required';
  const [database, bus, outbox] = await Promise.all([
    check(true, async () => {
      await inputs.db.query('SELECT 1');
      return {};
    }),
    check(eventsRequired, async () => {
      await inputs.transport.probe();
      return { kind: inputs.transport.kind };
    }),
    check(eventsRequired && maxOutboxAgeSeconds > 0, async () => {
      const health = await inputs.relay.health();
      const measures = {
        pending: health.pending,
        oldestPendingSeconds: Math.round(health.oldestPendingSeconds),
      };
      if (maxOutboxAgeSeconds > 0 && health.oldestPendingSeconds > maxOutboxAgeSeconds) {
        throw Object.assign(
          new Error(
            `events wait to be published for more than ${maxOutboxAgeSeconds} s` +
              (health.lastPublishError ? `: ${health.lastPublishError}` : ''),
          ),
          { measures },
        );
      }
      return measures;
    }),
  ]);
  return readinessReport({ database, bus, outbox });
}

/** Runs one check within CHECK_TIMEOUT_MS: up with its measures, or down with the reason. */
async function check(
  required: boolean,
  probe: () => Promise<Record<string, unknown>>,
): Promise<DependencyCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    const measures = await Promise.race([probe(), timeout]);
    return { status: 'up', required, ...measures };
  } catch (err) {
    const measures = (err as { measures?: Record<string, unknown> }).measures ?? {};
    return { status: 'down', required, detail: (err as Error).message, ...measures };
  } finally {
    clearTimeout(timer);
  }
}
