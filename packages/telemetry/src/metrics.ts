import client from 'prom-client';

/** One registry per process; in embedded mode every service registers into it, labelled by service. */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

const cache = new Map<string, unknown>();
function once<T>(name: string, make: () => T): T {
  if (!cache.has(name)) cache.set(name, make());
  return cache.get(name) as T;
}

export const metrics = {
  httpRequests: once(
    'http',
    () =>
      new client.Histogram({
        name: 'policyhub_http_request_duration_seconds',
        help: 'HTTP requests served by the gateway, by route and status',
        labelNames: ['method', 'route', 'status'],
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
        registers: [registry],
      }),
  ),
  rpcs: once(
    'rpc',
    () =>
      new client.Histogram({
        name: 'policyhub_rpc_duration_seconds',
        help: 'gRPC calls handled, by service, method and status code',
        labelNames: ['service', 'method', 'code'],
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
        registers: [registry],
      }),
  ),
  outboxLag: once(
    'outbox',
    () =>
      new client.Gauge({
        name: 'policyhub_outbox_pending_events',
        help: 'Outbox rows not yet published, by service',
        labelNames: ['service'],
        registers: [registry],
      }),
  ),
  outboxOldestAge: once(
    'outboxAge',
    () =>
      new client.Gauge({
        name: 'policyhub_outbox_oldest_pending_seconds',
        help: 'Age of the oldest outbox row not yet published, by service (0 when none is pending)',
        labelNames: ['service'],
        registers: [registry],
      }),
  ),
  consumed: once(
    'consumed',
    () =>
      new client.Counter({
        name: 'policyhub_events_consumed_total',
        help: 'Events handled by consumers, by consumer, topic and outcome (processed, duplicate, ignored, dead_lettered)',
        labelNames: ['consumer', 'topic', 'outcome'],
        registers: [registry],
      }),
  ),
  eventRowsDeleted: once(
    'eventRowsDeleted',
    () =>
      new client.Counter({
        name: 'policyhub_event_rows_deleted_total',
        help: 'Rows removed by event-table retention, by service and table (outbox, processed_events, dead_letters)',
        labelNames: ['service', 'table'],
        registers: [registry],
      }),
  ),
  eventTableBytes: once(
    'eventTableBytes',
    () =>
      new client.Gauge({
        name: 'policyhub_event_table_bytes',
        help: 'Size on disk of an event table with its indexes, by service and table',
        labelNames: ['service', 'table'],
        registers: [registry],
      }),
  ),
  eventTableOldest: once(
    'eventTableOldest',
    () =>
      new client.Gauge({
        name: 'policyhub_event_table_oldest_seconds',
        help: 'Age of the oldest row retention would remove (outbox: sent rows; processed_events; dead_letters), 0 when none',
        labelNames: ['service', 'table'],
        registers: [registry],
      }),
  ),
  deadLetters: once(
    'deadLetters',
    () =>
      new client.Gauge({
        name: 'policyhub_dead_letters',
        help: 'Events parked in dead_letters, waiting to be replayed or discarded, by service',
        labelNames: ['service'],
        registers: [registry],
      }),
  ),
  uploadSweeper: once(
    'uploadSweeper',
    () =>
      new client.Counter({
        name: 'policyhub_upload_sweeper_removed_total',
        help: 'What the storage upload sweeper settled or removed: expired_sessions (URLs that expired unused; their owners become errored), staging_files and object_temporaries (left by a process that died)',
        labelNames: ['what'],
        registers: [registry],
      }),
  ),
  consumerLag: once(
    'consumerLag',
    () =>
      new client.Gauge({
        name: 'policyhub_consumer_lag_seconds',
        help: 'Age of the last event a consumer handled when it handled it',
        labelNames: ['consumer', 'topic'],
        registers: [registry],
      }),
  ),
};
