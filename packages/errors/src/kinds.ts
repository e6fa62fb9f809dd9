/**
 * The one table from error kind to transport status (docs/errors.md, docs/adr/0030). Each kind
 * has exactly one gRPC code, chosen by its gRPC meaning, and one HTTP status; grpc-runtime reads
 * the first column, the gateway the second. A gRPC code never decides an HTTP status when the
 * error carries its kind (ErrorInfo): RESOURCE_EXHAUSTED is 429 for `rate_limited` and 413 for
 * `too_large`.
 */
export const ERROR_KINDS = {
  not_found: { grpc: 'NOT_FOUND', http: 404 },
  invalid: { grpc: 'INVALID_ARGUMENT', http: 422 },
  already_exists: { grpc: 'ALREADY_EXISTS', http: 422 },
  limit_exceeded: { grpc: 'RESOURCE_EXHAUSTED', http: 422 },
  conflict: { grpc: 'FAILED_PRECONDITION', http: 409 },
  bad_request: { grpc: 'INVALID_ARGUMENT', http: 400 },
  unauthenticated: { grpc: 'UNAUTHENTICATED', http: 401 },
  rate_limited: { grpc: 'RESOURCE_EXHAUSTED', http: 429 },
  too_large: { grpc: 'RESOURCE_EXHAUSTED', http: 413 },
  unavailable: { grpc: 'UNAVAILABLE', http: 503 },
  timeout: { grpc: 'DEADLINE_EXCEEDED', http: 504 },
  unimplemented: { grpc: 'UNIMPLEMENTED', http: 501 },
  internal: { grpc: 'INTERNAL', http: 500 },
  // Only the gateway raises these (about the HTTP request itself); they never cross gRPC.
  request_timeout: { grpc: 'DEADLINE_EXCEEDED', http: 408 },
  uri_too_long: { grpc: 'INVALID_ARGUMENT', http: 414 },
  unsupported_media_type: { grpc: 'INVALID_ARGUMENT', http: 415 },
  headers_too_large: { grpc: 'RESOURCE_EXHAUSTED', http: 431 },
} as const satisfies Record<string, { grpc: GrpcCodeName; http: number }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** gRPC status names (google.rpc.Code), so this package needs no gRPC dependency. */
export type GrpcCodeName =
  | 'CANCELLED'
  | 'UNKNOWN'
  | 'INVALID_ARGUMENT'
  | 'DEADLINE_EXCEEDED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'PERMISSION_DENIED'
  | 'RESOURCE_EXHAUSTED'
  | 'FAILED_PRECONDITION'
  | 'ABORTED'
  | 'OUT_OF_RANGE'
  | 'UNIMPLEMENTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'DATA_LOSS'
  | 'UNAUTHENTICATED';

export const httpStatusOfKind = (kind: ErrorKind): number => ERROR_KINDS[kind].http;

export const isErrorKind = (value: unknown): value is ErrorKind =>
  typeof value === 'string' && Object.hasOwn(ERROR_KINDS, value);
