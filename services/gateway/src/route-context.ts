import type { Principal } from '@policyhub/grpc-runtime';
import type { Logger } from '@policyhub/telemetry';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Clients } from './clients/index.js';
import { type PageInfo, paginationDocument } from './jsonapi/pagination.js';
import { JSON_API } from './jsonapi/media-type.js';
import type { WireNames } from './vocabulary.js';

/**
 * The instance resources register routes on: TypeBox's type provider types each handler's
 * `request.params`, `request.query` and `request.body` from the route's schema (ADR 0028).
 */
export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What every resource's routes get: the downstream clients and request helpers. */
export interface RouteContext {
  clients: Clients;
  logger: Logger;
  /** Absolute base URL for links: PUBLIC_URL, an allowed Host, or the arrival address (plugins/public-url.ts). */
  baseUrl(request: FastifyRequest): string;
  /** The served vocabulary profile's names (responses are translated by plugins/vocabulary.ts). */
  wire: WireNames;
}

/** Call options forwarding the caller to a service. */
export const as = (request: FastifyRequest): { principal: Principal } => ({ principal: request.principal });

export type Query = Record<string, string | undefined>;
export const queryOf = (request: FastifyRequest): Query => request.query as Query;
export const paramsOf = <T extends string>(request: FastifyRequest) => request.params as Record<T, string>;

export function sendDocument(reply: FastifyReply, status: number, document: unknown) {
  return reply.status(status).type(JSON_API).send(document);
}

export function sendNoContent(reply: FastifyReply) {
  return reply.status(204).send();
}

const understoodByRoute = new WeakMap<object, ReadonlySet<string>>();
const NOTHING_UNDERSTOOD: ReadonlySet<string> = new Set();

/** The query parameters a route declares in its schema (what its links may carry). */
function understoodParameters(request: FastifyRequest): ReadonlySet<string> {
  const querystring = request.routeOptions.schema?.querystring as
    | { properties?: Record<string, unknown> }
    | undefined;
  if (!querystring?.properties) return NOTHING_UNDERSTOOD;
  let names = understoodByRoute.get(querystring);
  if (names === undefined) {
    names = new Set(Object.keys(querystring.properties));
    understoodByRoute.set(querystring, names);
  }
  return names;
}

/**
 * `links` and `meta.pagination` of a list, for the path the request was served at (the prefix
 * rule has already normalised it to `/api/v2/...`) and with those of the request's query
 * parameters that the route's schema declares.
 */
export function pageDocument(ctx: RouteContext, request: FastifyRequest, page: PageInfo) {
  return paginationDocument(
    page,
    ctx.baseUrl(request),
    request.url.split('?')[0]!,
    queryOf(request),
    understoodParameters(request),
  );
}

/**
 * Reads a request body; when it is malformed, the target is looked up first (`ensureVisible`, its
 * `Get*`) so that a missing or hidden target still answers 404 rather than 422. A good body costs
 * no extra round trip: the write itself checks visibility first, with the same error `Get*` gives.
 */
export async function readAfterVisibilityCheck<T>(
  read: () => T,
  ensureVisible: () => Promise<unknown>,
): Promise<T> {
  try {
    return read();
  } catch (err) {
    await ensureVisible();
    throw err;
  }
}
