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
  /** Absolute base URL for links (PUBLIC_URL, else the request's own scheme and host). */
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

/**
 * `links` and `meta.pagination` of a list, for the path the request was served at (the prefix
 * rule has already normalised it to `/api/v2/...`) and with the request's own query parameters.
 */
export function pageDocument(ctx: RouteContext, request: FastifyRequest, page: PageInfo) {
  return paginationDocument(page, ctx.baseUrl(request), request.url.split('?')[0]!, queryOf(request));
}

/**
 * Reads the body of a write whose service call is itself refused (NOT_FOUND) when the caller may
 * not see the target. `seen` (the target's `Get*`) is asked only when the body is bad, so an
 * invisible or unknown target is still a 404 before any 422, and a good body costs no extra
 * round trip: the write checks visibility before anything else with the same error `Get*` gives.
 */
export async function readBodyOfVisible<T>(read: () => T, seen: () => Promise<unknown>): Promise<T> {
  try {
    return read();
  } catch (err) {
    await seen();
    throw err;
  }
}
