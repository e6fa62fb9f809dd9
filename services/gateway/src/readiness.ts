import type * as grpc from '@grpc/grpc-js';
import { type DependencyCheck, type ReadinessReport, readinessReport } from '@policyhub/telemetry';
import type { Clients } from './clients/index.js';

/** A backend whose channel is not connected within this long counts as down (probes time out at 2 s). */
const BACKEND_TIMEOUT_MS = 1_000;

/** One client per backend service: they share a channel per address, so one tells for all. */
const backendsOf = (clients: Clients): Record<string, grpc.Client> => ({
  'admin-orgs': clients.identity.raw,
  'policy-sets': clients.policySets.raw,
  runs: clients.runs.raw,
  storage: clients.storage.raw,
});

/**
 * The gateway is ready when it can reach every backend: each one's gRPC channel is connected,
 * or connects within a second. Each backend appears in the body by name.
 *
 * This checks that a backend answers on its port (a process listening and speaking HTTP/2), not
 * that it can serve: each service reports its own database and bus on its `/readyz` and on
 * grpc.health.v1, and a replica that cannot serve leaves its headless Service (ADR 0025); the
 * gateway stays ready and answers 503 for the calls that fail meanwhile (ADR 0023).
 */
export function backendReadiness(clients: Clients): () => Promise<ReadinessReport> {
  const backends = backendsOf(clients);
  return async () => {
    const checks = await Promise.all(
      Object.entries(backends).map(async ([name, client]) => [name, await reach(client)] as const),
    );
    return readinessReport(Object.fromEntries(checks));
  };
}

function reach(client: grpc.Client): Promise<DependencyCheck> {
  return new Promise((resolve) => {
    client.waitForReady(Date.now() + BACKEND_TIMEOUT_MS, (err) => {
      if (!err) resolve({ status: 'up', required: true });
      else resolve({ status: 'down', required: true, detail: `not reachable: ${err.message}` });
    });
  });
}
