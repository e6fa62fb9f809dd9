import type { Logger } from '@policyhub/telemetry';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { type PrincipalCache, MemoryPrincipalCache } from './auth/principal-cache.js';
import type { Clients } from './clients/index.js';
import { registerAuthentication } from './plugins/authenticate.js';
import { type BodyLimitOptions, DEFAULT_BODY_LIMITS, registerBodyLimits } from './plugins/body-limits.js';
import { refuseUnsupportedListParameters } from './plugins/list-parameters.js';
import { registerBodyParsing } from './plugins/body-parsing.js';
import { registerErrorHandling } from './plugins/error-handling.js';
import { handleClientError, sendFrameworkError } from './plugins/framework-errors.js';
import { rejectNulCharacters } from './plugins/nul-characters.js';
import { registerOpenApiRoute, registerRouteSchemas } from './plugins/openapi.js';
import { type RateLimitOptions, registerRateLimiting } from './plugins/rate-limit.js';
import { registerSecurityHeaders, securityHeaders } from './plugins/security-headers.js';
import { baseUrlResolver, registerHostCheck } from './plugins/public-url.js';
import { registerRequestLogging } from './plugins/request-logging.js';
import { registerResponseValidation } from './plugins/response-validation.js';
import { normaliseUrl, parseQuery } from './plugins/url.js';
import { registerVocabulary } from './plugins/vocabulary.js';
import { RESOURCE_DEFINITIONS, registerResources, resourceSchemas } from './resources/index.js';
import { registerDiscoveryRoute } from './resources/meta/discovery.js';
import type { RouteContext } from './route-context.js';
import { VOCABULARY, type VocabularyProfile } from './vocabulary.js';

export interface GatewayDeps {
  clients: Clients;
  logger: Logger;
  /**
   * Base URL for absolute links and upload URLs; unset: the request's scheme and Host when
   * `allowedHosts` lists it, else the address the connection arrived on (plugins/public-url.ts).
   */
  publicUrl?: string | undefined;
  /** Host names (optionally `:port`) the API answers to (ALLOWED_HOSTS); any other Host gets 400. */
  allowedHosts?: readonly string[] | undefined;
  principalCache?: PrincipalCache;
  /** Request budget per token and failed-authentication budget per address; none disables both. */
  rateLimits?: RateLimitOptions | undefined;
  /** JSON body limit in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Time limits of request bodies and open bodies per address (default DEFAULT_BODY_LIMITS). */
  bodyLimits?: Partial<BodyLimitOptions> | undefined;
  /** Addresses or CIDRs of trusted proxies (TRUST_PROXY): their X-Forwarded-For names the client. */
  trustProxy?: string[] | undefined;
  /** Wire vocabulary of responses (API_VOCABULARY, default `spec`); input is read in either. */
  vocabulary?: VocabularyProfile | undefined;
  /**
   * Check every JSON response against its route's schema; a mismatch is logged and answered 500
   * (VALIDATE_RESPONSES, ADR 0031: the e2e suite runs with it; off in production).
   */
  validateResponses?: boolean | undefined;
}

/**
 * Builds the HTTP edge without listening (tests use inject() or listen on port 0). It serves the
 * API only: health, readiness and metrics are on the ops listener (`startOpsServer`).
 */
export async function buildApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const publicUrl = deps.publicUrl?.replace(/\/+$/, '');
  const headers = securityHeaders(publicUrl?.startsWith('https://') ?? false);
  const app = Fastify({
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    rewriteUrl: (req) => normaliseUrl(req.url ?? '/'),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 300, querystringParser: parseQuery },
    return503OnClosing: true,
    ...(deps.trustProxy?.length ? { trustProxy: deps.trustProxy } : {}),
    frameworkErrors: (err, request, reply) => {
      reply.headers(headers);
      sendFrameworkError(err, request, reply);
    },
    clientErrorHandler: (err, socket) => handleClientError(err, socket, headers),
  });
  const ctx: RouteContext = {
    clients: deps.clients,
    logger: deps.logger,
    baseUrl: baseUrlResolver({ publicUrl, allowedHosts: deps.allowedHosts }),
    wire: VOCABULARY[deps.vocabulary ?? 'spec'],
  };
  const resources = resourceSchemas(ctx.wire);

  registerSecurityHeaders(app, headers);
  registerHostCheck(app, deps.allowedHosts);
  registerBodyLimits(app, { ...DEFAULT_BODY_LIMITS, ...definedOnly(deps.bodyLimits ?? {}) });
  registerBodyParsing(app);
  registerErrorHandling(app, deps.logger);
  registerRequestLogging(app, deps.logger);
  const failures = deps.rateLimits ? await registerRateLimiting(app, deps.rateLimits) : undefined;
  registerAuthentication(app, deps.clients, deps.principalCache ?? new MemoryPrincipalCache(), failures);
  rejectNulCharacters(app);
  refuseUnsupportedListParameters(app);
  registerVocabulary(app, deps.vocabulary ?? 'spec', RESOURCE_DEFINITIONS);
  if (deps.validateResponses) registerResponseValidation(app, resources, deps.logger);

  await registerRouteSchemas(app, resources);
  registerDiscoveryRoute(app);
  registerOpenApiRoute(app);
  await app.register(async (api) => registerResources(api.withTypeProvider<TypeBoxTypeProvider>(), ctx), {
    prefix: '/api/v2',
  });
  return app;
}

/** `options` without its undefined members, so they do not override defaults when spread. */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}
