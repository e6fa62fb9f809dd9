import { AppError, type ErrorCode } from '@policyhub/errors';
import type { Logger } from '@policyhub/telemetry';
import type { FastifyError, FastifyInstance } from 'fastify';
import {
  type HttpError,
  httpError,
  httpErrorFromAppError,
  httpErrorFromGrpc,
  isGrpcError,
  RETRY_AFTER_SECONDS,
} from '../errors/http-errors.js';
import { JSON_API } from '../jsonapi/media-type.js';
import { bodyTimeoutError } from './body-limits.js';

/**
 * Errors thrown by routes and hooks, and unmatched routes, as JSON:API error documents: AppErrors
 * and gRPC errors by their kind/code, fastify's own 4xx with a client-facing message, anything
 * else a 500 (logged; the client learns nothing more).
 */
export function registerErrorHandling(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    let mapped: HttpError;
    // Whatever failed after the body ran out of time (a parser, a cancelled upload) failed for that.
    if (request.bodyTimedOut) mapped = httpErrorFromAppError(bodyTimeoutError());
    else if (err instanceof AppError) mapped = httpErrorFromAppError(err);
    else if (isGrpcError(err)) mapped = httpErrorFromGrpc(err);
    else if (
      'statusCode' in err &&
      typeof err.statusCode === 'number' &&
      err.statusCode >= 400 &&
      err.statusCode < 500
    ) {
      mapped = httpError(clientErrorCode(err as FastifyError), clientMessage(err as FastifyError));
    } else {
      mapped = httpError('INTERNAL_ERROR');
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
    reply.status(404).type(JSON_API).send(httpError('NOT_FOUND').body);
  });
}

/**
 * The catalog code of a 4xx fastify raised itself (body limits, content types); its status is the
 * code's. Errors of request validation carry their own (AppError).
 */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'GATEWAY_BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'GATEWAY_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'GATEWAY_INVALID_CONTENT_LENGTH',
};
const CODE_FOR_FASTIFY_STATUS: Record<number, ErrorCode> = {
  404: 'NOT_FOUND',
  408: 'GATEWAY_REQUEST_TIMEOUT',
  413: 'GATEWAY_BODY_TOO_LARGE',
  414: 'GATEWAY_URI_TOO_LONG',
  415: 'GATEWAY_UNSUPPORTED_MEDIA_TYPE',
  431: 'GATEWAY_HEADERS_TOO_LARGE',
};
export const clientErrorCode = (err: FastifyError): ErrorCode =>
  (err.code && Object.hasOwn(FASTIFY_CODES, err.code) ? FASTIFY_CODES[err.code] : undefined) ??
  CODE_FOR_FASTIFY_STATUS[err.statusCode ?? 400] ??
  'BAD_REQUEST';

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
