import * as grpc from '@grpc/grpc-js';
import { AppError, type ErrorItem, type ErrorKind } from '@policyhub/errors';
import { readServiceError } from '@policyhub/grpc-runtime';

/**
 * The one gRPC status → HTTP status mapping (docs/errors.md). Every status is listed so adding a
 * new one is a compile error rather than a silent 500.
 */
export const HTTP_STATUS_FOR_GRPC: Record<grpc.status, number> = {
  [grpc.status.OK]: 200,
  [grpc.status.CANCELLED]: 503,
  [grpc.status.UNKNOWN]: 500,
  [grpc.status.INVALID_ARGUMENT]: 422,
  [grpc.status.DEADLINE_EXCEEDED]: 504,
  [grpc.status.NOT_FOUND]: 404,
  [grpc.status.ALREADY_EXISTS]: 422,
  [grpc.status.PERMISSION_DENIED]: 404,
  [grpc.status.RESOURCE_EXHAUSTED]: 429,
  [grpc.status.FAILED_PRECONDITION]: 409,
  [grpc.status.ABORTED]: 400,
  [grpc.status.OUT_OF_RANGE]: 413,
  [grpc.status.UNIMPLEMENTED]: 501,
  [grpc.status.INTERNAL]: 500,
  [grpc.status.UNAVAILABLE]: 503,
  [grpc.status.DATA_LOSS]: 500,
  [grpc.status.UNAUTHENTICATED]: 401,
};

const HTTP_STATUS_FOR_KIND: Record<ErrorKind, number> = {
  not_found: 404,
  invalid: 422,
  conflict: 409,
  unauthenticated: 401,
  rate_limited: 429,
  too_large: 413,
  unavailable: 503,
  bad_request: 400,
};

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
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export interface HttpError {
  statusCode: number;
  body: { errors: JsonApiError[] };
}

function toJsonApi(statusCode: number, items: ErrorItem[], fallbackDetail?: string): HttpError {
  // 401 and 404 bodies never carry details: a 404 must look the same whether the thing is
  // missing or merely hidden from the caller.
  if (statusCode === 404 || statusCode === 401) {
    return {
      statusCode,
      body: { errors: [{ status: String(statusCode), title: DEFAULT_TITLES[statusCode]! }] },
    };
  }
  const errors: JsonApiError[] = (
    items.length > 0 ? items : [{ title: DEFAULT_TITLES[statusCode] ?? 'error', detail: fallbackDetail }]
  ).map((i) => {
    const e: JsonApiError = { status: String(statusCode), title: i.title };
    if (i.detail) e.detail = i.detail;
    if (i.pointer) e.source = { pointer: i.pointer };
    else if (i.parameter) e.source = { parameter: i.parameter };
    return e;
  });
  return { statusCode, body: { errors } };
}

export function httpErrorFromAppError(err: AppError): HttpError {
  return toJsonApi(HTTP_STATUS_FOR_KIND[err.kind], err.items);
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
  const statusCode = HTTP_STATUS_FOR_GRPC[remote.status] ?? 500;
  if (statusCode === 503) {
    return toJsonApi(
      503,
      remote.status === grpc.status.UNAVAILABLE && remote.items.length ? remote.items : [],
      UNREACHABLE_DETAIL,
    );
  }
  if (statusCode >= 500) return toJsonApi(statusCode, []);
  return toJsonApi(statusCode, remote.items, remote.details);
}

export function httpError(statusCode: number, detail?: string, source?: JsonApiError['source']): HttpError {
  const e: JsonApiError = { status: String(statusCode), title: DEFAULT_TITLES[statusCode] ?? 'error' };
  if (detail) e.detail = detail;
  if (source) e.source = source;
  return { statusCode, body: { errors: [e] } };
}

export const isGrpcError = (err: unknown): boolean =>
  typeof err === 'object' &&
  err !== null &&
  typeof (err as { code?: unknown }).code === 'number' &&
  'metadata' in err;

export { AppError };
