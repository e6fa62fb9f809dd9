import * as grpc from '@grpc/grpc-js';
import { decodeMessage, encodeMessage } from '@policyhub/contracts';
import {
  type AppError,
  ERROR_KINDS,
  type ErrorItem,
  type ErrorKind,
  isErrorKind,
  remoteAppError,
} from '@policyhub/errors';

/**
 * The standard trailer for rich errors: a serialized google.rpc.Status whose details hold an
 * ErrorInfo (reason = catalog code) and, for errors about fields, a BadRequest
 * (docs/adr/0030-grpc-error-model.md). Any gRPC client can read it.
 */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
/** ErrorInfo.domain of every PolicyHub error. */
export const ERROR_DOMAIN = 'policyhub';

const TYPE_PREFIX = 'type.googleapis.com/';
const ERROR_INFO = 'google.rpc.ErrorInfo';
const BAD_REQUEST = 'google.rpc.BadRequest';

/** The gRPC status of each kind: the one table in @policyhub/errors, by name. */
export const grpcStatusOfKind = (kind: ErrorKind): grpc.status => grpc.status[ERROR_KINDS[kind].grpc];

interface StatusMessage {
  code: number;
  message: string;
  /** google.protobuf.Any as protobufjs bundles it (snake_case field names). */
  details: Array<{ type_url: string; value: Uint8Array }>;
}
interface ErrorInfoMessage {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}
interface BadRequestMessage {
  fieldViolations: Array<{ field: string; description: string }>;
}

/** Keeps the trailer small (gRPC metadata is bounded): at most 50 items, bounded strings. */
const boundItems = (items: ErrorItem[]): ErrorItem[] =>
  items.slice(0, 50).map((i) => ({
    title: i.title.slice(0, 200),
    ...(i.detail ? { detail: i.detail.slice(0, 1000) } : {}),
    ...(i.field ? { field: i.field.slice(0, 300) } : {}),
    ...(i.pointer ? { pointer: i.pointer.slice(0, 300) } : {}),
    ...(i.parameter ? { parameter: i.parameter.slice(0, 100) } : {}),
  }));

const any = (typeName: string, value: object) => ({
  type_url: `${TYPE_PREFIX}${typeName}`,
  value: encodeMessage(typeName, value),
});

/**
 * A domain error as google.rpc.Status. ErrorInfo carries the code, the kind and the items'
 * title; each item is a BadRequest field violation (field in domain terms, description = detail)
 * unless the error is a single item about no field, whose detail is the status message.
 */
export function encodeStatus(err: AppError): { code: grpc.status; message: string; bytes: Buffer } {
  const items = boundItems(err.items);
  const code = grpcStatusOfKind(err.kind);
  const only = items.length === 1 ? items[0] : undefined;
  const plain = only !== undefined && !only.field && !only.pointer && !only.parameter;
  const message = plain ? (only.detail ?? '') : err.message.slice(0, 1000);
  const metadata: Record<string, string> = { kind: err.kind, title: items[0]?.title ?? '' };
  if (only?.parameter) metadata.parameter = only.parameter;
  const details = [any(ERROR_INFO, { reason: err.code, domain: ERROR_DOMAIN, metadata })];
  if (!plain && items.length > 0) {
    details.push(
      any(BAD_REQUEST, {
        fieldViolations: items.map((i) => ({
          field: i.field ?? i.pointer ?? '',
          description: i.detail ?? '',
        })),
      }),
    );
  }
  const bytes = encodeMessage('google.rpc.Status', { code, message, details });
  return { code, message, bytes };
}

/** Turns a domain error into a gRPC error carrying a google.rpc.Status in its trailer. */
export function toServiceError(err: AppError): grpc.ServiceError {
  const { code, message, bytes } = encodeStatus(err);
  const metadata = new grpc.Metadata();
  metadata.set(STATUS_DETAILS_KEY, bytes);
  return Object.assign(new Error(message), { code, details: message, metadata }) as grpc.ServiceError;
}

export interface RemoteError {
  status: grpc.status;
  /** The catalog code (ErrorInfo.reason), or the gRPC status name when the error carries none. */
  code: string;
  /** The kind the sender gave, when the error is a PolicyHub domain error. */
  kind?: ErrorKind;
  items: ErrorItem[];
  details: string;
}

/** Decodes the google.rpc.Status of a trailer; undefined when absent or not PolicyHub's. */
function decodeStatus(raw: unknown): Omit<RemoteError, 'status' | 'details'> | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  try {
    const status = decodeMessage<StatusMessage>('google.rpc.Status', raw);
    let info: ErrorInfoMessage | undefined;
    let badRequest: BadRequestMessage | undefined;
    for (const d of status.details) {
      if (d.type_url === `${TYPE_PREFIX}${ERROR_INFO}`) info = decodeMessage(ERROR_INFO, d.value);
      else if (d.type_url === `${TYPE_PREFIX}${BAD_REQUEST}`)
        badRequest = decodeMessage(BAD_REQUEST, d.value);
    }
    if (!info || info.domain !== ERROR_DOMAIN || !isErrorKind(info.metadata.kind)) return undefined;
    const title = info.metadata.title || 'error';
    const parameter = info.metadata.parameter;
    const items: ErrorItem[] = badRequest
      ? badRequest.fieldViolations.map((v) => ({
          title,
          ...(v.description ? { detail: v.description } : {}),
          ...(v.field ? { field: v.field } : {}),
          ...(parameter ? { parameter } : {}),
        }))
      : [{ title, ...(status.message && status.message !== title ? { detail: status.message } : {}) }];
    return { code: info.reason, kind: info.metadata.kind, items };
  } catch {
    return undefined;
  }
}

/** Reads the error a downstream service sent (status, code, kind, items), whatever produced it. */
export function readServiceError(err: unknown): RemoteError {
  const e = err as Partial<grpc.ServiceError>;
  const status = typeof e.code === 'number' ? e.code : grpc.status.UNKNOWN;
  const details = e.details ?? String(err);
  const decoded = decodeStatus(e.metadata?.get(STATUS_DETAILS_KEY)[0]);
  if (decoded) return { status, details: e.details ?? '', ...decoded };
  return { status, code: grpc.status[status] ?? 'UNKNOWN', items: [], details };
}

/** The domain error a downstream service sent, when it sent one. */
export function remoteDomainError(err: unknown): AppError | undefined {
  const remote = readServiceError(err);
  return remote.kind ? remoteAppError(remote.kind, remote.code, remote.items, remote.details) : undefined;
}

/** Re-raises a downstream error inside a service as a domain error when it is one. */
export function rethrowAsAppError(err: unknown): never {
  throw remoteDomainError(err) ?? err;
}
