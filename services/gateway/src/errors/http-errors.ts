import * as grpc from '@grpc/grpc-js';
import { AppError, ERROR_CATALOG, type ErrorCode, type ErrorItem, httpStatusOfKind } from '@policyhub/errors';
import { readServiceError } from '@policyhub/grpc-runtime';
import { sourceOf } from './fields.js';

/**
 * HTTP statuses come from the error's kind, through the one table in @policyhub/errors
 * (ERROR_KINDS), whether the error was raised here or arrived from a service as a
 * google.rpc.Status (docs/errors.md, docs/adr/0030). Only a gRPC status that carries no PolicyHub
 * error (the transport failed, or a peer that is not PolicyHub answered) is mapped by its gRPC
 * meaning, to one of these catalog codes. Every status is listed so adding one is a compile error
 * rather than a silent 500.
 */
export const CODE_FOR_BARE_GRPC_STATUS: Record<grpc.status, ErrorCode> = {
  [grpc.status.OK]: 'INTERNAL_ERROR',
  [grpc.status.CANCELLED]: 'GATEWAY_SERVICE_UNAVAILABLE',
  [grpc.status.UNKNOWN]: 'INTERNAL_ERROR',
  [grpc.status.INVALID_ARGUMENT]: 'BAD_REQUEST',
  [grpc.status.DEADLINE_EXCEEDED]: 'GATEWAY_TIMEOUT',
  [grpc.status.NOT_FOUND]: 'NOT_FOUND',
  [grpc.status.ALREADY_EXISTS]: 'CONFLICT',
  [grpc.status.PERMISSION_DENIED]: 'NOT_FOUND',
  [grpc.status.RESOURCE_EXHAUSTED]: 'RESOURCE_EXHAUSTED',
  [grpc.status.FAILED_PRECONDITION]: 'CONFLICT',
  [grpc.status.ABORTED]: 'CONFLICT',
  [grpc.status.OUT_OF_RANGE]: 'BAD_REQUEST',
  [grpc.status.UNIMPLEMENTED]: 'NOT_IMPLEMENTED',
  [grpc.status.INTERNAL]: 'INTERNAL_ERROR',
  [grpc.status.UNAVAILABLE]: 'GATEWAY_SERVICE_UNAVAILABLE',
  [grpc.status.DATA_LOSS]: 'INTERNAL_ERROR',
  [grpc.status.UNAUTHENTICATED]: 'UNAUTHORIZED',
};

/** The HTTP status of a catalog code. */
export const httpStatusOf = (code: ErrorCode): number => httpStatusOfKind(ERROR_CATALOG[code]);

const DEFAULT_TITLES: Record<number, string> = {
  400: 'bad request',
  401: 'unauthorized',
  404: 'not found',
  408: 'request timeout',
  409: 'conflict',
  413: 'payload too large',
  414: 'uri too long',
  415: 'unsupported media type',
  422: 'unprocessable entity',
  429: 'too many requests',
  431: 'request header fields too large',
  500: 'internal server error',
  501: 'not implemented',
  503: 'service unavailable',
  504: 'gateway timeout',
};

export interface JsonApiError {
  status: string;
  /** The catalog code (docs/errors.md). */
  code: string;
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export interface HttpError {
  statusCode: number;
  body: { errors: JsonApiError[] };
}

function toJsonApi(statusCode: number, code: string, items: ErrorItem[], fallbackDetail?: string): HttpError {
  // 401 and 404 bodies never carry details, nor the code of what was not found: a 404 must look
  // the same whether the thing is missing or merely hidden from the caller.
  if (statusCode === 404 || statusCode === 401) {
    return {
      statusCode,
      body: {
        errors: [
          {
            status: String(statusCode),
            code: statusCode === 404 ? 'NOT_FOUND' : 'UNAUTHORIZED',
            title: DEFAULT_TITLES[statusCode]!,
          },
        ],
      },
    };
  }
  const errors: JsonApiError[] = (
    items.length > 0 ? items : [{ title: DEFAULT_TITLES[statusCode] ?? 'error', detail: fallbackDetail }]
  ).map((i) => {
    const e: JsonApiError = { status: String(statusCode), code, title: i.title };
    if (i.detail) e.detail = i.detail;
    const source = sourceOf(i);
    if (source) e.source = source;
    return e;
  });
  return { statusCode, body: { errors } };
}

export function httpErrorFromAppError(err: AppError): HttpError {
  const statusCode = httpStatusOfKind(err.kind);
  // Internal failures say nothing beyond their status (a 503 says what to retry).
  if (statusCode >= 500 && statusCode !== 503) return toJsonApi(statusCode, err.code, []);
  return toJsonApi(statusCode, err.code, err.items);
}

/** What a 503 says when the service that failed gave no reason (it could not be reached at all). */
const UNREACHABLE_DETAIL = 'a PolicyHub service is unavailable; try again shortly';

/**
 * Seconds clients should wait before retrying a 503 (`Retry-After`): long enough for a database
 * failover or a pod restart to progress, short enough not to stall a CI job.
 */
export const RETRY_AFTER_SECONDS = 5;

/** Maps an error from a downstream gRPC call. Internal details never reach the client. */
export function httpErrorFromGrpc(err: unknown): HttpError {
  const remote = readServiceError(err);
  if (remote.kind) {
    const statusCode = httpStatusOfKind(remote.kind);
    if (statusCode >= 500 && statusCode !== 503) return toJsonApi(statusCode, remote.code, []);
    return toJsonApi(statusCode, remote.code, remote.items);
  }
  const code = CODE_FOR_BARE_GRPC_STATUS[remote.status] ?? 'INTERNAL_ERROR';
  const statusCode = httpStatusOf(code);
  if (statusCode === 503) return toJsonApi(503, code, [], UNREACHABLE_DETAIL);
  if (statusCode >= 500) return toJsonApi(statusCode, code, []);
  return toJsonApi(statusCode, code, [], remote.details);
}

/** An error document the gateway makes itself: the status is the code's (one table). */
export function httpError(code: ErrorCode, detail?: string, source?: JsonApiError['source']): HttpError {
  const statusCode = httpStatusOf(code);
  const e: JsonApiError = { status: String(statusCode), code, title: DEFAULT_TITLES[statusCode] ?? 'error' };
  if (detail) e.detail = detail;
  if (source) e.source = source;
  if (statusCode === 404 || statusCode === 401) return toJsonApi(statusCode, code, []);
  return { statusCode, body: { errors: [e] } };
}

export const isGrpcError = (err: unknown): boolean =>
  typeof err === 'object' &&
  err !== null &&
  typeof (err as { code?: unknown }).code === 'number' &&
  'metadata' in err;

export { AppError };
