import { PassThrough, type Readable } from 'node:stream';
import { AppError } from '@policyhub/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpError } from '../errors/http-errors.js';
import { JSON_API } from '../jsonapi/media-type.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body did not arrive within its time limit: whatever failed next answers 408. */
    bodyTimedOut: boolean;
  }
  interface FastifyContextConfig {
    /** The body is streamed to a service (archive and plan uploads): the longer time limit. */
    streamedBody?: boolean;
  }
}

export interface BodyLimitOptions {
  /** Milliseconds from a request's headers to the last byte of its JSON body. */
  bodyTimeoutMs: number;
  /** The same for streamed bodies (routes with `config.streamedBody`). */
  streamedBodyTimeoutMs: number;
  /** Request bodies one client address may have arriving at once; 0: no limit. */
  openBodiesPerAddress: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimitOptions = {
  bodyTimeoutMs: 30_000,
  streamedBodyTimeoutMs: 900_000,
  openBodiesPerAddress: 64,
};

/** Seconds a client refused for too many open bodies should wait (one of its bodies may end). */
const OPEN_BODIES_RETRY_AFTER_SECONDS = 5;

export const bodyTimeoutError = () =>
  new AppError('request_timeout', 'GATEWAY_REQUEST_TIMEOUT', [
    { title: 'request timeout', detail: 'the request body did not arrive in time' },
  ]);

const tooManyOpenBodies = (limit: number) =>
  new AppError('rate_limited', 'GATEWAY_TOO_MANY_OPEN_BODIES', [
    {
      title: 'too many requests',
      detail: `this address already has ${limit} request bodies arriving; finish one first`,
    },
  ]);

const hasBody = (request: FastifyRequest): boolean => {
  const length = request.headers['content-length'];
  return (
    !request.raw.complete &&
    ((length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined)
  );
};

/**
 * Every request body, with or without a token, has a time limit from the moment its headers
 * arrived, and each client address may have only so many bodies arriving at once (docs/security.md,
 * "The edge"). Registered first: the body is read before authentication runs, so neither limit
 * may depend on it.
 *
 * On time-out, a body still being read fails with 408 (the parser or the streaming route reads
 * from a stream this plugin ends with the error) and the connection closes after the answer; a
 * body nobody reads any more (the request was already answered) just loses its connection.
 */
export function registerBodyLimits(app: FastifyInstance, options: BodyLimitOptions): void {
  const open = new Map<string, number>();
  app.decorateRequest('bodyTimedOut', false);

  /** Requests whose body is timed, and the stream it is read through once parsing starts. */
  const streams = new WeakMap<FastifyRequest, PassThrough | undefined>();
  /** The stream each timed body arrives on and the one it is piped into for the parser. */
  const sources = new WeakMap<FastifyRequest, { source: Readable; stream: PassThrough }>();

  app.addHook('onRequest', async (request, reply) => {
    if (!hasBody(request)) return;
    const address = request.ip;
    const limit = options.openBodiesPerAddress;
    const already = open.get(address) ?? 0;
    if (limit > 0 && already >= limit) {
      // The refused body is not read: close the connection once the error is written.
      reply.header('connection', 'close');
      reply.header('retry-after', String(OPEN_BODIES_RETRY_AFTER_SECONDS));
      expireUnreadBody(request, reply, options.bodyTimeoutMs);
      throw tooManyOpenBodies(limit);
    }
    open.set(address, already + 1);
    streams.set(request, undefined);
    const ms = request.routeOptions.config?.streamedBody
      ? options.streamedBodyTimeoutMs
      : options.bodyTimeoutMs;
    const timer = setTimeout(() => {
      request.bodyTimedOut = true;
      if (reply.sent || reply.raw.headersSent) {
        // Only a body still arriving holds the connection; once it is complete the socket may be
        // serving the client's next request (keep-alive), which must not be cut.
        if (!request.raw.complete) request.raw.socket?.destroy();
        release();
        return;
      }
      reply.header('connection', 'close');
      const stream = streams.get(request);
      if (stream) stream.destroy(bodyTimeoutError());
      else void reply.status(408).type(JSON_API).send(httpError('GATEWAY_REQUEST_TIMEOUT').body);
    }, ms);
    timer.unref();
    const socket = request.raw.socket;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      socket.off('close', release);
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    };
    // The body ends with its last byte ('end'; after an answer Node reads and discards the rest)
    // or with its connection (which may outlive the request object's own events).
    request.raw.once('end', release);
    request.raw.once('close', release);
    socket.once('close', release);
    // Answered before the body was read to its end (refused on its headers or past a size
    // limit): the rest is read and dropped, so the connection can carry the client's next
    // request; the time limit still cuts a body that keeps arriving.
    reply.raw.once('finish', () => {
      if (request.raw.complete) release();
      const piped = sources.get(request);
      if (piped && !piped.source.readableEnded) {
        piped.source.unpipe(piped.stream);
        piped.source.resume();
      }
    });
  });

  // The parser and the streaming routes read the body through a stream the time-out can end.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (!streams.has(request)) return payload;
    const stream = new PassThrough();
    (payload as Readable).pipe(stream);
    (payload as Readable).once('error', (err) => stream.destroy(err));
    streams.set(request, stream);
    sources.set(request, { source: payload as Readable, stream });
    return stream;
  });
}

/** A refused request's unread body may not hold its connection past the body time limit. */
function expireUnreadBody(request: FastifyRequest, _reply: FastifyReply, ms: number): void {
  const timer = setTimeout(() => request.raw.socket?.destroy(), ms);
  timer.unref();
  request.raw.once('end', () => clearTimeout(timer));
  request.raw.once('close', () => clearTimeout(timer));
}

/** How long a body answered before its end may keep arriving (read and dropped) before its connection closes. */
export const LINGER_MS = 2_000;

/**
 * A streamed body answered before its end (refused past a limit, or storage/runs done with it):
 * the rest is read and dropped for at most LINGER_MS, then the connection closes if the body is
 * still arriving. Closing at once (`connection: close`) makes the client's next writes meet a
 * reset, and a reset can discard the answer before the client reads it (the "lingering close"
 * servers such as nginx and Apache do for the same reason). A body that ends in time leaves the
 * connection open for the client's next request.
 */
export function lingerIfUnread(request: FastifyRequest, reply: FastifyReply, bodyFullyRead: boolean): void {
  if (bodyFullyRead || request.raw.complete) return;
  reply.raw.once('finish', () => {
    if (request.raw.complete) return;
    const timer = setTimeout(() => {
      if (!request.raw.complete) request.raw.socket?.destroy();
    }, LINGER_MS);
    timer.unref();
    request.raw.once('end', () => clearTimeout(timer));
    request.raw.once('close', () => clearTimeout(timer));
  });
}
