import type { FastifyInstance } from 'fastify';

/**
 * Headers on every response of the API (docs/adr/0011-security-headers-and-ops-listener.md): the
 * set OWASP recommends for JSON APIs. Nothing here is ever meant to be rendered, framed, sniffed
 * or cached: every document is per caller, and several carry secrets (a new token, upload URLs).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
});

/** One year, the usual HSTS lifetime; sent only when the API is served over https. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/** The headers for one response; HSTS only when PUBLIC_URL is https (TLS ends in front of us). */
export function securityHeaders(https: boolean): Record<string, string> {
  return https ? { ...SECURITY_HEADERS, 'strict-transport-security': HSTS } : { ...SECURITY_HEADERS };
}

/**
 * Sets the headers first thing on every request (before rate limits and authentication can end
 * it), so errors, 401s, 404s and 429s carry them as well. Router errors, which no hook sees, get
 * them in `sendFrameworkError`. A route may still set its own `Cache-Control`; none does.
 */
export function registerSecurityHeaders(app: FastifyInstance, headers: Record<string, string>): void {
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(headers);
  });
}
