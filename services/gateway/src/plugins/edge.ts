import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, badRequest } from '@policyhub/errors';
import { metrics, type Logger } from '@policyhub/telemetry';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type HttpError,
  httpError,
  httpErrorFromAppError,
  httpErrorFromGrpc,
  isGrpcError,
  RETRY_AFTER_SECONDS,
} from '../errors/http-errors.js';
import { DISCOVERY_PATH } from '../resources/meta/discovery.js';
import { nulCharacterError, nulCharacterPointer } from './nul-characters.js';

export const JSON_API = 'application/vnd.api+json';
/** Served at the root whatever the prefix rule says (Terraform's service discovery). */
const ROOT_PATHS = new Set([DISCOVERY_PATH]);

/**
 * `/api/v2` is optional on input (also when doubled): strip every leading copy, then serve under
 * exactly one. Everything this port serves is under it except the discovery document at the root
 * (ops endpoints have their own listener).
 */
export function normaliseUrl(url: string): string {
  const q = url.indexOf('?');
  let path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q);
  if (ROOT_PATHS.has(path)) return url;
  while (path === '/api/v2' || path.startsWith('/api/v2/')) path = path.slice('/api/v2'.length) || '/';
  return `/api/v2${path === '/' ? '' : path}${query}`;
}

/**
 * Query strings: bracket keys decoded (`page%5Bsize%5D` → `page[size]`), one string per key. The
 * result has no prototype: keys are user data (`__proto__`, `constructor`, `toString`) and are
 * stored, read and iterated as ordinary keys.
 */
export function parseQuery(raw: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of new URLSearchParams(raw)) {
    const previous = out[k];
    out[k] = previous !== undefined && k === 'include' ? `${previous},${v}` : v;
  }
  return out;
}

/** JSON bodies of either media type; an empty body is allowed (clients send one on body-less POST/DELETE). */
export function registerBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', JSON_API],
    { parseAs: 'string' },
    (_req, body: string | Buffer, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        done(
          badRequest('GATEWAY_MALFORMED_JSON', 'the request body is not valid JSON') as unknown as Error,
          undefined,
        );
        return;
      }
      // A NUL can only arrive escaped (`\u0000`): look for one only when the text holds that escape.
      const nul = text.includes('\\u0000') ? nulCharacterPointer(parsed) : undefined;
      if (nul !== undefined) done(nulCharacterError({ pointer: nul }) as unknown as Error, undefined);
      else done(null, parsed);
    },
  );
}

export function registerErrorHandling(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    let mapped: HttpError;
    if (err instanceof AppError) mapped = httpErrorFromAppError(err);
    else if (isGrpcError(err)) mapped = httpErrorFromGrpc(err);
    else if (
      'statusCode' in err &&
      typeof err.statusCode === 'number' &&
      err.statusCode >= 400 &&
      err.statusCode < 500
    ) {
      mapped = httpError(err.statusCode, clientMessage(err as FastifyError));
    } else {
      mapped = httpError(500);
    }
    if (mapped.statusCode === 503) {
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      // A dependency is down (e.g. Postgres restarting): expected and transient, one line each.
      logger.warn(
        { route: request.routeOptions.url, method: request.method, reason: err.message },
        'service unavailable',
      );
    } else if (mapped.statusCode >= 500) {
      logger.error({ err, route: request.routeOptions.url, method: request.method }, 'request failed');
    }
    reply.status(mapped.statusCode).type(JSON_API).send(mapped.body);
  });
  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).type(JSON_API).send(httpError(404).body);
  });
}

/**
 * Router errors, raised before any route or hook runs: a URL that is not validly percent-encoded
 * (400) and a path parameter longer than maxParamLength (414). Same JSON:API shape as every error.
 */
export function sendFrameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const mapped = tooLong
    ? httpError(414, 'a path segment of the URL is too long')
    : httpError(400, 'the URL is not validly percent-encoded');
  reply.status(mapped.statusCode).type(JSON_API).send(mapped.body);
}

/** What went wrong in a request the HTTP parser refused, by llhttp/Node error code. */
function framingProblem(code: string | undefined): [status: number, detail: string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request did not arrive in time'];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'the request headers are too large'];
    case 'HPE_INVALID_METHOD':
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
      return [400, 'the request line is malformed'];
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return [400, 'a request header is malformed'];
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
    case 'HPE_INVALID_EOF_STATE':
      return [400, 'the chunked request body is malformed'];
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return [400, 'the Content-Length header is invalid'];
    default:
      return [400, 'the request is not valid HTTP/1.1'];
  }
}

/**
 * Requests the HTTP parser refuses (bad request line, bad header, broken chunked encoding, …)
 * never reach fastify's routing: Node reports them on the socket. Answer them with the same
 * JSON:API error shape and security headers as everything else, then close the connection
 * (fastify's default writes a non-JSON:API body). Nothing was routed, so nothing can have changed.
 */
export function handleClientError(
  err: Error & { code?: string },
  socket: Socket,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] = framingProblem(err.code);
  const response = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !response?.headersSent) {
    const body = JSON.stringify(httpError(status, detail).body);
    const extra = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_API}\r\n${extra}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

const clientMessage = (err: FastifyError): string => {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'the request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `unsupported content type; use ${JSON_API}`;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'the Content-Length header does not match the body';
    default:
      return err.message;
  }
};

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
