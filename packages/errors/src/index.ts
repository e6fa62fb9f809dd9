/**
 * Domain errors shared by every service. They carry no transport detail: grpc-runtime maps them to
 * gRPC statuses once, and the gateway maps statuses to HTTP once (see docs/errors.md).
 */

export type ErrorKind =
  | 'not_found'
  | 'invalid'
  | 'conflict'
  | 'unauthenticated'
  | 'rate_limited'
  | 'too_large'
  | 'unavailable'
  | 'bad_request';

export interface ErrorItem {
  title: string;
  detail?: string;
  /** JSON pointer into the request document, e.g. `/data/attributes/name`. */
  pointer?: string;
  /** Name of a query parameter, e.g. `include`. */
  parameter?: string;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  /** Catalog code, UPPER_SNAKE prefixed by the owning service (docs/errors.md). */
  readonly code: string;
  readonly items: ErrorItem[];

  constructor(kind: ErrorKind, code: string, items: ErrorItem[], message?: string) {
    super(message ?? items.map((i) => i.detail ?? i.title).join('; '));
    this.name = 'AppError';
    this.kind = kind;
    this.code = code;
    this.items = items;
  }
}

export const notFound = (code = 'NOT_FOUND'): AppError =>
  new AppError('not_found', code, [{ title: 'not found' }]);

export const invalidAttribute = (code: string, pointer: string, detail: string): AppError =>
  new AppError('invalid', code, [{ title: 'invalid attribute', detail, pointer }]);

export const unprocessable = (code: string, detail: string): AppError =>
  new AppError('invalid', code, [{ title: 'unprocessable entity', detail }]);

export const conflict = (code: string, detail: string): AppError =>
  new AppError('conflict', code, [{ title: 'conflict', detail }]);

export const badRequest = (code: string, detail: string, parameter?: string): AppError =>
  new AppError('bad_request', code, [{ title: 'bad request', detail, ...(parameter ? { parameter } : {}) }]);

export const unauthenticated = (): AppError =>
  new AppError('unauthenticated', 'UNAUTHORIZED', [{ title: 'unauthorized' }]);

export const tooLarge = (code: string, detail: string): AppError =>
  new AppError('too_large', code, [{ title: 'payload too large', detail }]);

export const unavailable = (code: string, detail: string): AppError =>
  new AppError('unavailable', code, [{ title: 'service unavailable', detail }]);

/** Collects several validation failures and throws them as one 422. */
export class ValidationErrors {
  private readonly items: ErrorItem[] = [];
  private firstCode = '';

  add(code: string, pointer: string, detail: string): this {
    if (!this.firstCode) this.firstCode = code;
    this.items.push({ title: 'invalid attribute', detail, pointer });
    return this;
  }

  get isEmpty(): boolean {
    return this.items.length === 0;
  }

  throwIfAny(): void {
    if (this.items.length > 0) throw new AppError('invalid', this.firstCode, this.items);
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
export { newId } from './ids.js';
