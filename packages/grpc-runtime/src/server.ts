import * as grpc from '@grpc/grpc-js';
import { isAppError, unavailable } from '@policyhub/errors';
import { type Principal, readPrincipal } from './principal.js';
import { toServiceError } from './status.js';

export interface RpcContext {
  /** The calling user, forwarded by the gateway; undefined for internal calls. */
  principal: Principal | undefined;
  metadata: grpc.Metadata;
}

export interface RpcLogger {
  error(obj: object, msg: string): void;
}

export type Handlers<H> = {
  [K in keyof H as string extends K ? never : K]: H[K] extends grpc.handleUnaryCall<infer Req, infer Res>
    ? (request: Req, ctx: RpcContext) => Promise<Res>
    : H[K];
};

/**
 * Adapts async handlers to grpc-js: reads the principal, maps domain errors to statuses, and logs
 * (never sends) the cause of unexpected failures. Streaming handlers pass through untouched.
 */
export function implement<H>(
  impl: Handlers<H>,
  options: { logger: RpcLogger; isUnavailable?: (err: unknown) => boolean },
): grpc.UntypedServiceImplementation {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(impl as Record<string, unknown>)) {
    if (typeof fn !== 'function' || (fn as { stream?: boolean }).stream) {
      out[name] = fn;
      continue;
    }
    const handler = fn as (req: unknown, ctx: RpcContext) => Promise<unknown>;
    out[name] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const ctx: RpcContext = { principal: readPrincipal(call.metadata), metadata: call.metadata };
      handler(call.request, ctx).then(
        (res) => callback(null, res),
        (err: unknown) => callback(asServiceError(err, name, options)),
      );
    };
  }
  return out as grpc.UntypedServiceImplementation;
}

/** Marks a streaming handler so implement() leaves it alone. */
export function streaming<T extends (...args: never[]) => unknown>(fn: T): T {
  return Object.assign(fn, { stream: true });
}

export function asServiceError(
  err: unknown,
  method: string,
  options: { logger: RpcLogger; isUnavailable?: (err: unknown) => boolean },
): grpc.ServiceError {
  if (isAppError(err)) return toServiceError(err);
  if (options.isUnavailable?.(err)) {
    return toServiceError(unavailable('DATABASE_UNAVAILABLE', 'the database is unavailable; try again shortly'));
  }
  options.logger.error({ err, method }, 'rpc failed');
  return Object.assign(new Error('internal error'), {
    code: grpc.status.INTERNAL,
    details: 'internal error',
    metadata: new grpc.Metadata(),
  }) as grpc.ServiceError;
}

/** Creates a gRPC server (not yet bound) with sane limits. */
export function createGrpcServer(): grpc.Server {
  return new grpc.Server({
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    'grpc.max_send_message_length': 8 * 1024 * 1024,
  });
}

/** Binds to host:port (port 0 picks a free one) and resolves the actual address. */
export function bindServer(server: grpc.Server, address: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => {
      if (err) return reject(err);
      const host = address.slice(0, address.lastIndexOf(':'));
      resolve(`${host}:${port}`);
    });
  });
}

export function shutdownServer(server: grpc.Server, graceMs = 5_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
