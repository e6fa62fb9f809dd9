import * as grpc from '@grpc/grpc-js';
import { isAppError, remoteAppError, unavailable } from '@policyhub/errors';
import { metrics } from '@policyhub/telemetry';
import {
  LOCAL_HANDLER,
  LOCAL_STREAM_HANDLER,
  type LocalStreamHandler,
  type LocalUnaryHandler,
} from './in-process.js';
import type { Caller, CallerKind, InternalAuth, SigningKey } from './internal-auth.js';
import type { Principal } from '@policyhub/permissions';
import { readServiceError, toServiceError } from './status.js';
import { MAX_MESSAGE_BYTES } from './message-limit.js';

export interface RpcContext {
  /** The calling user (a verified assertion); undefined for verified internal or worker calls. */
  principal: Principal | undefined;
  /** Who made the call, verified. */
  caller: Caller;
  metadata: grpc.Metadata;
}

export interface RpcLogger {
  error(obj: object, msg: string): void;
}

export interface ImplementOptions {
  logger: RpcLogger;
  isUnavailable?: (err: unknown) => boolean;
  /** Verifies every call's credential. */
  auth: InternalAuth;
  /** Callers this service accepts; default users (through the gateway) and services. */
  allow?: readonly CallerKind[];
}

const DEFAULT_ALLOW: readonly CallerKind[] = ['user', 'service'];

const unauthenticatedError = (): grpc.ServiceError =>
  Object.assign(new Error('the call carries no valid credential for this service'), {
    code: grpc.status.UNAUTHENTICATED,
    details: 'the call carries no valid credential for this service',
    metadata: new grpc.Metadata(),
  }) as grpc.ServiceError;

/** The verified caller of a call if this service accepts it. */
function callerOf(metadata: grpc.Metadata, options: ImplementOptions): Caller | undefined {
  const caller = options.auth.authenticate(metadata);
  return caller && (options.allow ?? DEFAULT_ALLOW).includes(caller.kind) ? caller : undefined;
}

export type Handlers<H> = {
  [K in keyof H as string extends K ? never : K]: H[K] extends grpc.handleUnaryCall<infer Req, infer Res>
    ? (request: Req, ctx: RpcContext) => Promise<Res>
    : H[K];
};

/**
 * Adapts async handlers to grpc-js: verifies the caller (UNAUTHENTICATED otherwise, streaming
 * calls included), maps domain errors to statuses, and logs (never sends) the cause of unexpected
 * failures. Every call is timed into `policyhub_rpc_duration_seconds`.
 */
export function implement<H>(
  impl: Handlers<H>,
  options: ImplementOptions,
): grpc.UntypedServiceImplementation {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(impl as Record<string, unknown>)) {
    if (typeof fn !== 'function') {
      out[name] = fn;
      continue;
    }
    if ((fn as { stream?: boolean }).stream) {
      out[name] = Object.assign(timedStream(name, authenticatedStream(fn as StreamHandler, options)), {
        [LOCAL_STREAM_HANDLER]: localStream(name, fn as StreamHandler, options),
      });
      continue;
    }
    const handler = fn as (req: unknown, ctx: RpcContext) => Promise<unknown>;
    const unary = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const observe = startTimer(call.getPath?.() ?? '', name);
      const caller = callerOf(call.metadata, options);
      if (!caller) {
        observe(grpc.status.UNAUTHENTICATED);
        callback(unauthenticatedError());
        return;
      }
      const principal = caller.kind === 'user' ? caller.principal : undefined;
      const ctx: RpcContext = { principal, caller, metadata: call.metadata };
      handler(call.request, ctx).then(
        (res) => {
          observe(grpc.status.OK);
          callback(null, res);
        },
        (err: unknown) => {
          const serviceError = asServiceError(err, name, options);
          observe(serviceError.code);
          callback(serviceError);
        },
      );
    };
    // The same handler for in-process calls (in-process.ts): the caller comes as a value from this
    // process with the key it would have signed with, instead of a signed assertion; allowed
    // callers, errors and timing are the same.
    const local: LocalUnaryHandler = async (request, caller, key, path) => {
      const observe = startTimer(path, name);
      if (!admitsInProcess(options, caller, key)) {
        observe(grpc.status.UNAUTHENTICATED);
        throw unauthenticatedError();
      }
      const principal = caller.kind === 'user' ? caller.principal : undefined;
      try {
        const res = await handler(request, { principal, caller, metadata: new grpc.Metadata() });
        observe(grpc.status.OK);
        return res;
      } catch (err) {
        const serviceError = asServiceError(err, name, options);
        observe(serviceError.code);
        throw serviceError;
      }
    };
    out[name] = Object.assign(unary, { [LOCAL_HANDLER]: local });
  }
  return out as grpc.UntypedServiceImplementation;
}

/** What every server call offers: its path (`/package.Service/Method`) and stream events. */
type ServerCall = { getPath(): string };
type StreamCall = ServerCall & NodeJS.EventEmitter;
type StreamHandler = (call: StreamCall, callback?: grpc.sendUnaryData<unknown>) => unknown;

/**
 * Starts timing a call; the returned function records it once with its final status. Labels are
 * the full gRPC service name and method from the call's path (`/policyhub.storage.v1.Storage/Put`).
 */
function startTimer(path: string, fallbackMethod: string): (code: grpc.status) => void {
  const started = process.hrtime.bigint();
  const slash = path.lastIndexOf('/');
  const service = slash > 0 ? path.slice(1, slash) : 'unknown';
  const method = slash > 0 ? path.slice(slash + 1) : fallbackMethod;
  let recorded = false;
  return (code) => {
    if (recorded) return;
    recorded = true;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    metrics.rpcs.observe({ service, method, code: grpc.status[code] ?? String(code) }, seconds);
  };
}

const codeOf = (err: unknown): grpc.status =>
  typeof (err as { code?: unknown })?.code === 'number'
    ? (err as { code: grpc.status }).code
    : grpc.status.UNKNOWN;

/**
 * Times a streaming handler without changing it: client streams end with their callback, server
 * and bidirectional streams when the call finishes, fails or is cancelled.
 */
function timedStream(name: string, fn: StreamHandler): StreamHandler {
  return (call, callback) => {
    const observe = startTimer(call.getPath?.() ?? '', name);
    if (typeof callback === 'function') {
      return fn(call, (err, value, trailer, flags) => {
        observe(err ? codeOf(err) : grpc.status.OK);
        callback(err, value, trailer, flags);
      });
    }
    call.once('finish', () => observe(grpc.status.OK));
    call.once('error', (err: unknown) => observe(codeOf(err)));
    call.once('cancelled', () => observe(grpc.status.CANCELLED));
    return fn(call);
  };
}

/**
 * Refuses a streaming call without a valid credential before its handler sees it: client streams
 * through their callback, server and bidirectional streams with an error status.
 */
function authenticatedStream(fn: StreamHandler, options: ImplementOptions): StreamHandler {
  return (call, callback) => {
    if (callerOf((call as unknown as { metadata: grpc.Metadata }).metadata, options))
      return fn(call, callback);
    if (typeof callback === 'function') {
      callback(unauthenticatedError());
      return;
    }
    call.emit('error', unauthenticatedError());
  };
}

/**
 * Whether an in-process caller may call this service: it must hold the key the caller would have
 * signed with, and be a kind of caller the service accepts (ADR 0033).
 */
function admitsInProcess(options: ImplementOptions, caller: Caller, key: SigningKey): boolean {
  return options.auth.holdsKey(key) && (options.allow ?? DEFAULT_ALLOW).includes(caller.kind);
}

/**
 * The same streaming handler for in-process client streams (in-process.ts): the caller comes as a
 * value with the key it would have signed with; refused (UNAUTHENTICATED, through the callback)
 * unless this service holds that key and accepts that kind of caller. Timed as over gRPC.
 */
function localStream(name: string, fn: StreamHandler, options: ImplementOptions): LocalStreamHandler {
  return (call, callback, caller, key) =>
    timedStream(name, (c, cb) => {
      if (admitsInProcess(options, caller, key)) return fn(c, cb);
      cb?.(unauthenticatedError());
    })(call, callback);
}

/** Marks a streaming handler so implement() passes it through (verifying and timing its calls). */
export function streaming<T extends (...args: never[]) => unknown>(fn: T): T {
  return Object.assign(fn, { stream: true });
}

/**
 * A call this service made to another one failed because that one could not be reached or did
 * not answer in time: the caller gets a retryable 503, never a 500.
 */
const isDownstreamUnavailable = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof err === 'object' &&
    err !== null &&
    'metadata' in err &&
    (code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED)
  );
};

export function asServiceError(
  err: unknown,
  method: string,
  options: Pick<ImplementOptions, 'logger' | 'isUnavailable'>,
): grpc.ServiceError {
  if (isAppError(err)) return toServiceError(err);
  if (options.isUnavailable?.(err)) {
    return toServiceError(
      unavailable('DATABASE_UNAVAILABLE', 'the database is unavailable; try again shortly'),
    );
  }
  if (isDownstreamUnavailable(err)) {
    const remote = readServiceError(err);
    return toServiceError(
      remote.kind
        ? remoteAppError('unavailable', remote.code, remote.items)
        : unavailable(
            'DEPENDENCY_UNAVAILABLE',
            'a service this one depends on is unavailable; try again shortly',
          ),
    );
  }
  options.logger.error({ err, method }, 'rpc failed');
  return Object.assign(new Error('internal error'), {
    code: grpc.status.INTERNAL,
    details: 'internal error',
    metadata: new grpc.Metadata(),
  }) as grpc.ServiceError;
}

/**
 * Creates a gRPC server (not yet bound) with sane limits. Connections are closed gracefully (GOAWAY;
 * calls in flight finish) after MAX_CONNECTION_AGE_MS, so round-robin clients resolve the name
 * again and spread over replicas added since they connected (ADR 0025).
 */
export function createGrpcServer(): grpc.Server {
  return new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
    // Channelz (grpc-js' introspection service, never served here) counts and timestamps every call.
    'grpc.enable_channelz': 0,
  });
}

/** How long a client connection lives before the server asks the client to reconnect. */
export const MAX_CONNECTION_AGE_MS = 5 * 60_000;

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
