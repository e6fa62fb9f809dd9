import { badRequest } from '@policyhub/errors';
import type { FastifyInstance } from 'fastify';

/** Query parameters that narrow or order what a list or show answers. */
const LIST_SHAPING = /^(?:filter|search)\[|^sort$/;
/** Indexed filters (`filter[0][status]`) are documented once, as `filter[n][status]`. */
const INDEX = /\[\d+\]/g;

/**
 * Filters, searches and sorts a route does not document in its query schema are refused (400
 * naming the parameter), never ignored: a client that asked for a subset must not take the whole
 * list for it (docs/adr/0048-client-surface.md). Other unknown parameters stay ignored, as
 * upstream ignores them. Runs after authentication, so an anonymous call is still a 401.
 */
export function refuseUnsupportedListParameters(app: FastifyInstance): void {
  const supportedByRoute = new WeakMap<object, ReadonlySet<string>>();
  app.addHook('preHandler', async (request) => {
    const schema = request.routeOptions.schema?.querystring as { properties?: object } | undefined;
    const query = request.query as Record<string, unknown> | undefined;
    if (!query || typeof query !== 'object') return;
    let supported = schema ? supportedByRoute.get(schema) : undefined;
    if (!supported) {
      supported = new Set(Object.keys(schema?.properties ?? {}).filter((key) => LIST_SHAPING.test(key)));
      if (schema) supportedByRoute.set(schema, supported);
    }
    const name = Object.keys(query).find(
      (key) => LIST_SHAPING.test(key) && !supported.has(key.replace(INDEX, '[n]')),
    );
    if (name === undefined) return;
    throw badRequest(
      'GATEWAY_UNSUPPORTED_PARAMETER',
      `Unsupported parameter: ${name.slice(0, 100)} (supported here: ${[...supported].join(', ') || 'none'})`,
      name.slice(0, 100),
    );
  });
}
