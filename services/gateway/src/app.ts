import type { Logger } from '@policyhub/telemetry';
import { registry } from '@policyhub/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';
import { type PrincipalCache, MemoryPrincipalCache } from './auth/principal-cache.js';
import type { Clients } from './clients/index.js';
import { registerAuthentication } from './plugins/authenticate.js';
import {
  normaliseUrl,
  parseQuery,
  registerBodyParsing,
  registerErrorHandling,
  registerRequestLogging,
  sendFrameworkError,
} from './plugins/edge.js';
import { rejectNulCharacters } from './plugins/nul-characters.js';
import { registerRateLimiting } from './plugins/rate-limit.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';
import { registerResources } from './resources/index.js';
import type { RouteContext } from './route-context.js';

export interface GatewayDeps {
  clients: Clients;
  logger: Logger;
  /** Base URL for absolute links and upload URLs; defaults to the request's scheme and host. */
  publicUrl?: string | undefined;
  principalCache?: PrincipalCache;
  /** Per-token request budget (429 beyond it); none disables rate limiting. */
  rateLimiter?: RateLimiter | undefined;
  /** Resolves true when downstream services answer. */
  isReady?: () => Promise<boolean>;
  /** JSON body limit in bytes (default 1 MiB). */
  bodyLimit?: number;
}

/** Builds the HTTP edge without listening (tests use inject() or listen on port 0). */
export async function buildApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    rewriteUrl: (req) => normaliseUrl(req.url ?? '/'),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 300, querystringParser: parseQuery },
    return503OnClosing: true,
    frameworkErrors: sendFrameworkError,
  });
  const publicUrl = deps.publicUrl?.replace(/\/+$/, '');
  const ctx: RouteContext = {
    clients: deps.clients,
    logger: deps.logger,
    baseUrl: (request) => publicUrl ?? `${request.protocol}://${request.host}`,
  };

  registerBodyParsing(app);
  registerErrorHandling(app, deps.logger);
  registerRequestLogging(app, deps.logger);
  if (deps.rateLimiter) registerRateLimiting(app, deps.rateLimiter, deps.logger);
  registerAuthentication(app, deps.clients, deps.principalCache ?? new MemoryPrincipalCache());
  rejectNulCharacters(app);

  app.get('/healthz', { config: { isPublic: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { isPublic: true } }, async (_req, reply) => {
    const ready = (await deps.isReady?.()) ?? true;
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready' });
  });
  app.get('/metrics', { config: { isPublic: true } }, async (_req, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );

  await app.register(async (api) => registerResources(api, ctx), { prefix: '/api/v2' });
  return app;
}
