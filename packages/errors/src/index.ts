/**
 * Domain errors shared by every service. They carry no transport detail: a catalog code
 * (catalog.ts), whose kind decides the gRPC and HTTP status (kinds.ts), and items naming the
 * fields they are about in domain terms. grpc-runtime sends them as a google.rpc.Status; the
 * gateway turns fields into JSON:API pointers and wire names (docs/errors.md, docs/adr/0030).
 */
import { type CodeOf, type ErrorCode, type ERROR_CATALOG, kindOf } from './catalog.js';
import type { ErrorKind } from './kinds.js';

export interface ErrorItem {
  title: string;
  detail?: string;
  /**
   * The field of the request the item is about, in domain terms (the service's own names, as in
   * its gRPC request): `name`, `enforcement_level`, `vcs_repo.identifier`, `enforce[0].mode`,
   * `policies`, `configuration_version.id`, `filter.kind`. The gateway maps it to the JSON:API
   * `source` (services/gateway/src/errors/fields.ts). A value starting with `/` is a JSON pointer
   * into a request document that is not JSON:API (a Terraform plan), passed through unchanged.
   */
  field?: string;
  /** Gateway only: a JSON pointer into the JSON:API request document, e.g. `/data/attributes/name`. */
  pointer?: string;
  /** Gateway only: name of a query parameter, e.g. `include`. */
  parameter?: string;
}

/** The kind of a code (`ERROR_CATALOG`): `new AppError(kind, code, …)` must agree with it. */
type KindOfCode<C extends ErrorCode> = (typeof ERROR_CATALOG)[C];

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly kind: ErrorKind;
  /** Catalog code, UPPER_SNAKE prefixed by the owning service (docs/errors.md). */
  readonly code: C;
  readonly items: ErrorItem[];

  constructor(kind: KindOfCode<C>, code: C, items: ErrorItem[], message?: string) {
    super(message ?? items.map((i) => i.detail ?? i.title).join('; '));
    this.name = 'AppError';
    this.kind = kind;
    this.code = code;
    this.items = items;
  }
}

/**
 * An error received from another service: its code may be one this build does not know, so its
 * kind is the one it was sent with.
 */
export const remoteAppError = (
  kind: ErrorKind,
  code: string,
  items: ErrorItem[],
  message?: string,
): AppError => new AppError(kind as never, code as ErrorCode, items, message);

const make = <C extends ErrorCode>(code: C, items: ErrorItem[]): AppError =>
  new AppError(kindOf(code) as KindOfCode<C>, code, items);

/** What a 422 may be: an invalid value, a name already taken, a limit reached. */
type UnprocessableCode = CodeOf<'invalid' | 'already_exists' | 'limit_exceeded'>;

export const notFound = (code: CodeOf<'not_found'> = 'NOT_FOUND'): AppError =>
  make(code, [{ title: 'not found' }]);

/** A field of the request is wrong; `field` in domain terms (see ErrorItem.field). */
export const invalidAttribute = (code: UnprocessableCode, field: string, detail: string): AppError =>
  make(code, [{ title: 'invalid attribute', detail, field }]);

export const unprocessable = (code: UnprocessableCode, detail: string): AppError =>
  make(code, [{ title: 'unprocessable entity', detail }]);

export const conflict = (code: CodeOf<'conflict'>, detail: string): AppError =>
  make(code, [{ title: 'conflict', detail }]);

export const badRequest = (code: CodeOf<'bad_request'>, detail: string, parameter?: string): AppError =>
  make(code, [{ title: 'bad request', detail, ...(parameter ? { parameter } : {}) }]);

export const unauthenticated = (): AppError => make('UNAUTHORIZED', [{ title: 'unauthorized' }]);

export const tooLarge = (code: CodeOf<'too_large'>, detail: string): AppError =>
  make(code, [{ title: 'payload too large', detail }]);

export const unavailable = (code: CodeOf<'unavailable'>, detail: string): AppError =>
  make(code, [{ title: 'service unavailable', detail }]);

/** Collects several validation failures and throws them as one 422 (the first code names it). */
export class ValidationErrors {
  private readonly items: ErrorItem[] = [];
  private firstCode: UnprocessableCode | undefined;

  /** `field` in domain terms (see ErrorItem.field). */
  add(code: UnprocessableCode, field: string, detail: string): this {
    if (!this.firstCode) this.firstCode = code;
    this.items.push({ title: 'invalid attribute', detail, field });
    return this;
  }

  get isEmpty(): boolean {
    return this.items.length === 0;
  }

  throwIfAny(): void {
    if (this.firstCode) throw make(this.firstCode, this.items);
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
export { newId } from './ids.js';
export { type CodeOf, ERROR_CATALOG, type ErrorCode, isErrorCode, kindOf } from './catalog.js';
export { ERROR_KINDS, type ErrorKind, type GrpcCodeName, httpStatusOfKind, isErrorKind } from './kinds.js';
