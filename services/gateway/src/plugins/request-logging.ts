import { type Logger, metrics } from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';

/** One concise log line per request, by route pattern (raw URLs can hold capability tokens). */
export function registerRequestLogging(app: FastifyInstance, logger: Logger): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.httpRequests.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      seconds,
    );
    logger.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
