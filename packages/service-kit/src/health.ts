import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';

type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

/** The name `grpc.health.v1` probes ask for the process alone, whatever its dependencies say. */
export const LIVENESS_SERVICE = 'liveness';

export interface HealthOptions {
  /** Whether the process can serve (its readiness: database, bus, outbox). */
  isReady(): Promise<boolean>;
  /** How long one readiness answer is reused, so probes cannot load the database. */
  cacheMs?: number;
  /** How often a Watch stream re-evaluates the status. */
  watchIntervalMs?: number;
}

export interface HealthService {
  /** Every later answer is NOT_SERVING (the server is draining). */
  shutdown(): void;
}

/** `/policyhub.adminorgs.v1.Identity/Authenticate` → `policyhub.adminorgs.v1.Identity`. */
const serviceNameOf = (definition: grpc.ServiceDefinition): string => {
  const first = Object.values(definition)[0];
  return first ? first.path.slice(1, first.path.lastIndexOf('/')) : '';
};

/**
 * Adds the standard `grpc.health.v1.Health` service to `server`, answering for `""` (the whole
 * server) and for each of `served` (the API services on this port): SERVING when the process is
 * ready, else NOT_SERVING; `liveness` is SERVING as long as the server answers. Unknown names are
 * NOT_FOUND on Check and SERVICE_UNKNOWN on Watch, as the protocol says.
 *
 * It needs no internal credential (Kubernetes probes and grpc_health_probe carry none) and tells
 * nothing but these statuses.
 */
export function addHealthService(
  server: grpc.Server,
  served: readonly grpc.ServiceDefinition[],
  options: HealthOptions,
): HealthService {
  const names = new Set(['', ...served.map(serviceNameOf)]);
  const cacheMs = options.cacheMs ?? 1_000;
  let draining = false;
  const watches = new Set<grpc.ServerWritableStream<unknown, { status: ServingStatus }>>();
  let cached: { at: number; ready: Promise<boolean> } | undefined;

  const isReady = (): Promise<boolean> => {
    const now = Date.now();
    if (!cached || now - cached.at >= cacheMs) {
      cached = { at: now, ready: options.isReady().catch(() => false) };
    }
    return cached.ready;
  };

  const statusOf = async (service: string): Promise<ServingStatus> => {
    if (service === LIVENESS_SERVICE) return draining ? 'NOT_SERVING' : 'SERVING';
    if (!names.has(service)) return 'SERVICE_UNKNOWN';
    if (draining) return 'NOT_SERVING';
    return (await isReady()) ? 'SERVING' : 'NOT_SERVING';
  };

  const health = contracts().grpc.health.v1.Health;
  server.addService(health.service, {
    Check(
      call: grpc.ServerUnaryCall<{ service: string }, unknown>,
      callback: grpc.sendUnaryData<{ status: ServingStatus }>,
    ) {
      statusOf(call.request.service).then((status) => {
        if (status === 'SERVICE_UNKNOWN') {
          callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
          return;
        }
        callback(null, { status });
      });
    },
    Watch(call: grpc.ServerWritableStream<{ service: string }, { status: ServingStatus }>) {
      let last: ServingStatus | undefined;
      const send = async () => {
        const status = await statusOf(call.request.service);
        if (status !== last && !call.cancelled) {
          last = status;
          call.write({ status });
        }
      };
      const timer = setInterval(() => void send(), options.watchIntervalMs ?? 5_000);
      timer.unref();
      watches.add(call);
      const stop = () => {
        clearInterval(timer);
        watches.delete(call);
      };
      call.on('cancelled', stop);
      call.on('close', stop);
      call.on('error', stop);
      void send();
    },
  });

  return {
    shutdown() {
      draining = true;
      // Watchers learn it now, and their streams end so the server can drain.
      for (const call of watches) {
        call.write({ status: 'NOT_SERVING' });
        call.end();
      }
      watches.clear();
    },
  };
}
