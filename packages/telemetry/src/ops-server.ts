import { createServer, type Server } from 'node:http';
import { registry } from './metrics.js';

/** One dependency as `/readyz` reports it. */
export interface DependencyCheck {
  status: 'up' | 'down';
  /** Whether a `down` makes the process not ready (otherwise it is only reported). */
  required: boolean;
  /** Why it is down, or what was measured. Never a secret. */
  detail?: string;
  [measure: string]: unknown;
}

/** What `/readyz` answers: ready when every required check is up; each dependency by name. */
export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, DependencyCheck>;
}

export interface OpsServerOptions {
  port: number;
  host?: string;
  /**
   * Whether the process can serve traffic: a plain answer, or a report naming each dependency
   * (database, bus, outbox, backends…), which becomes the body of `/readyz`.
   */
  isReady: () => Promise<boolean | ReadinessReport>;
}

/** Builds a report from named checks: ready when every required one is up. */
export function readinessReport(checks: Record<string, DependencyCheck>): ReadinessReport {
  return { ready: Object.values(checks).every((c) => c.status === 'up' || !c.required), checks };
}

/**
 * `/healthz` (the process is alive: never looks at a dependency), `/readyz` (it can serve: 200 or
 * 503, with a JSON body naming each dependency and its state) and `/metrics` (Prometheus).
 * deploy/README.md ("Health and readiness") says what probes should do with each.
 */
export function startOpsServer(options: OpsServerOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (path === '/readyz') {
      options.isReady().then(
        (answer) => {
          const report = typeof answer === 'boolean' ? undefined : answer;
          const ready = report ? report.ready : answer === true;
          res
            .writeHead(ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
            .end(
              JSON.stringify({
                status: ready ? 'ready' : 'not ready',
                ...(report ? { checks: report.checks } : {}),
              }),
            );
        },
        (err: unknown) =>
          res
            .writeHead(503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
            .end(JSON.stringify({ status: 'not ready', detail: (err as Error).message })),
      );
    } else if (path === '/metrics') {
      registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve(server));
  });
}
