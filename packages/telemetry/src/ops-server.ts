import { createServer, type Server } from 'node:http';
import { registry } from './metrics.js';

export interface OpsServerOptions {
  port: number;
  host?: string;
  /** Resolves true when the service can serve traffic (database reachable, etc.). */
  isReady: () => Promise<boolean>;
}

/** `/healthz` (alive), `/readyz` (dependencies reachable) and `/metrics` (Prometheus) for a service. */
export function startOpsServer(options: OpsServerOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (path === '/readyz') {
      options.isReady().then(
        (ready) =>
          res
            .writeHead(ready ? 200 : 503, { 'content-type': 'application/json' })
            .end(JSON.stringify({ status: ready ? 'ready' : 'not ready' })),
        () => res.writeHead(503).end('{"status":"not ready"}'),
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
