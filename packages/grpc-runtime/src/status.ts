import * as grpc from '@grpc/grpc-js';
import { AppError, type ErrorItem, type ErrorKind } from '@policyhub/errors';

const ERROR_KEY = 'x-policyhub-error';

const kindToStatus: Record<ErrorKind, grpc.status> = {
  not_found: grpc.status.NOT_FOUND,
  invalid: grpc.status.INVALID_ARGUMENT,
  conflict: grpc.status.FAILED_PRECONDITION,
  unauthenticated: grpc.status.UNAUTHENTICATED,
  rate_limited: grpc.status.RESOURCE_EXHAUSTED,
  too_large: grpc.status.OUT_OF_RANGE,
  unavailable: grpc.status.UNAVAILABLE,
  bad_request: grpc.status.ABORTED,
};

/**
 * gRPC metadata values must be printable ASCII and stay small: escape everything else as JSON
 * \\u sequences (JSON.parse restores it) and bound the number and length of items.
 */
export function encodeErrorJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const boundItems = (items: ErrorItem[]): ErrorItem[] =>
  items.slice(0, 50).map((i) => ({
    ...i,
    title: i.title.slice(0, 200),
    ...(i.detail ? { detail: i.detail.slice(0, 1000) } : {}),
    ...(i.pointer ? { pointer: i.pointer.slice(0, 300) } : {}),
  }));

/** Turns a domain error into a gRPC error carrying the JSON:API error items in trailing metadata. */
export function toServiceError(err: AppError): grpc.ServiceError {
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_KEY, encodeErrorJson({ code: err.code, kind: err.kind, items: boundItems(err.items) }));
  return Object.assign(new Error(err.message), {
    code: kindToStatus[err.kind],
    details: err.message,
    metadata,
  }) as grpc.ServiceError;
}

export interface RemoteError {
  status: grpc.status;
  code: string;
  items: ErrorItem[];
  details: string;
}

/** Reads the error a downstream service sent (status + items), whatever produced it. */
export function readServiceError(err: unknown): RemoteError {
  const e = err as Partial<grpc.ServiceError>;
  const status = typeof e.code === 'number' ? e.code : grpc.status.UNKNOWN;
  const raw = e.metadata?.get(ERROR_KEY)[0];
  if (typeof raw === 'string') {
    try {
      const parsed = JSON.parse(raw) as { code: string; items: ErrorItem[] };
      return { status, code: parsed.code, items: parsed.items, details: e.details ?? '' };
    } catch {
      // fall through to the generic shape
    }
  }
  return { status, code: grpc.status[status] ?? 'UNKNOWN', items: [], details: e.details ?? String(err) };
}

/** Re-raises a downstream error inside a service as a domain error when it is one. */
export function rethrowAsAppError(err: unknown): never {
  const remote = readServiceError(err);
  const kind = (Object.entries(kindToStatus).find(([, s]) => s === remote.status)?.[0] ?? undefined) as
    | ErrorKind
    | undefined;
  if (kind && remote.items.length > 0) throw new AppError(kind, remote.code, remote.items);
  throw err;
}
