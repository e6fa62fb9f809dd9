import { AppError } from '@policyhub/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Where the absolute URLs the gateway writes (upload URLs, pagination links) come from
 * (docs/adr/0041-absolute-urls-and-body-time-limits.md), never from a Host header nobody vetted:
 *
 * - `PUBLIC_URL`, when set;
 * - else, with `ALLOWED_HOSTS`, the request's scheme and Host, which is then one of them (any
 *   other Host is refused before anything runs);
 * - else the address the connection arrived on (`http://<local address>:<port>`), which is the
 *   listen address when it is a specific one (npm start: http://127.0.0.1:8080).
 */
export interface PublicUrlOptions {
  publicUrl?: string | undefined;
  allowedHosts?: readonly string[] | undefined;
}

/** `host` or `host:port` (IPv6 in brackets), as ALLOWED_HOSTS takes them. */
export const HOST_ENTRY = /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::\d{1,5})?$/i;

/** Splits `name[:port]` (IPv6 `[…]:port`) into its lowercased name and port. */
function splitHost(host: string): { name: string; port: string | undefined } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(host.trim().toLowerCase());
  return m ? { name: m[1]!, port: m[2] || undefined } : { name: host.toLowerCase(), port: undefined };
}

/** An entry without a port allows its name on any port; with one, that port only. */
export function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  if (!host) return false;
  const { name, port } = splitHost(host);
  return allowed.some((entry) => {
    const e = splitHost(entry);
    return e.name === name && (e.port === undefined || e.port === port);
  });
}

/** `http://<address>:<port>` of the socket the request arrived on. */
function arrivalUrl(request: FastifyRequest): string {
  const socket = request.raw.socket;
  let address = socket.localAddress ?? '127.0.0.1';
  if (address.startsWith('::ffff:') && address.includes('.')) address = address.slice('::ffff:'.length);
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${socket.localPort}`;
}

/** The base URL of absolute links for one request. */
export function baseUrlResolver(options: PublicUrlOptions): (request: FastifyRequest) => string {
  const publicUrl = options.publicUrl?.replace(/\/+$/, '');
  if (publicUrl) return () => publicUrl;
  if (options.allowedHosts?.length) return (request) => `${request.protocol}://${request.host}`;
  return arrivalUrl;
}

const hostNotAllowed = () =>
  new AppError('bad_request', 'GATEWAY_HOST_NOT_ALLOWED', [
    { title: 'bad request', detail: 'the Host of the request is not one this server answers to' },
  ]);

/**
 * With ALLOWED_HOSTS, a request for any other Host is refused (400) before anything else runs:
 * its links could not be written, and a name nobody configured is how DNS rebinding reaches a
 * server on a private address.
 */
export function registerHostCheck(app: FastifyInstance, allowedHosts: readonly string[] | undefined): void {
  if (!allowedHosts?.length) return;
  app.addHook('onRequest', async (request, reply) => {
    if (hostAllowed(request.host, allowedHosts)) return;
    reply.header('connection', 'close');
    throw hostNotAllowed();
  });
}
