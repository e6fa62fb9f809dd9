import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { metrics } from '../src/metrics.js';
import { startOpsServer } from '../src/ops-server.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function start(isReady: () => Promise<boolean>): Promise<string> {
  server = await startOpsServer({ port: 0, host: '127.0.0.1', isReady });
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

describe("a service's ops server", () => {
  it('serves every PolicyHub metric in the Prometheus text format', async () => {
    const base = await start(async () => true);
    metrics.rpcs.observe({ service: 'policyhub.storage.v1.Storage', method: 'Upload', code: 'OK' }, 0.004);
    metrics.outboxLag.set({ service: 'storage' }, 3);
    metrics.consumerLag.set(
      { consumer: 'policy-sets.upload-completed', topic: 'storage.upload-completed' },
      0.2,
    );

    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    for (const name of [
      'policyhub_http_request_duration_seconds',
      'policyhub_rpc_duration_seconds',
      'policyhub_outbox_pending_events',
      'policyhub_outbox_oldest_pending_seconds',
      'policyhub_events_consumed_total',
      'policyhub_consumer_lag_seconds',
      'process_cpu_seconds_total',
    ]) {
      expect(text, name).toContain(`# HELP ${name} `);
    }
    expect(text).toContain(
      'policyhub_rpc_duration_seconds_count{service="policyhub.storage.v1.Storage",method="Upload",code="OK"} 1',
    );
    expect(text).toContain('policyhub_outbox_pending_events{service="storage"} 3');
    expect(text).toContain(
      'policyhub_consumer_lag_seconds{consumer="policy-sets.upload-completed",topic="storage.upload-completed"} 0.2',
    );
  });

  it('answers /healthz while alive and /readyz by its dependencies', async () => {
    let ready = false;
    const base = await start(async () => ready);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const notReady = await fetch(`${base}/readyz`);
    expect([notReady.status, await notReady.json()]).toEqual([503, { status: 'not ready' }]);
    ready = true;
    const nowReady = await fetch(`${base}/readyz`);
    expect([nowReady.status, await nowReady.json()]).toEqual([200, { status: 'ready' }]);
    expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
  });
});
