import * as grpc from '@grpc/grpc-js';
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Caller, ClientCredential, SigningKey } from './internal-auth.js';
import type { Principal } from '@policyhub/permissions';

/**
 * In-process calls (embedded mode, docs/adr/0033-in-process-calls-in-embedded-mode.md).
 *
 * When every service runs in one process, a unary call from the gateway or one service to another
 * need not cross HTTP/2: the client finds the target's handler in this registry and calls it
 * directly. What stays the same as over gRPC: the request and the response are copied through
 * their protobuf codecs (the same defaults, no shared objects), the handler is the one implement()
 * built (the same allowed callers, error mapping and `policyhub_rpc_duration_seconds`), errors
 * reach the caller as the same gRPC status with the same metadata, and a client and a server span
 * are recorded. What is skipped: HTTP/2, grpc-js call machinery, metadata, and signing and
 * verifying an assertion — the caller is handed over as a value with the signing key it would
 * have used, and the server refuses it (UNAUTHENTICATED) unless it holds that key. Nothing outside
 * the process can reach this path; the gRPC ports keep verifying every call.
 * Streaming calls, worker tokens and every call in distributed mode use real gRPC.
 *
 * Off unless the process turns it on (enableInProcessCalls: embedded mode only).
 */

/** The unary handler implement() attaches to each gRPC handler, callable without gRPC. */
export type LocalUnaryHandler = (
  request: unknown,
  caller: Caller,
  key: SigningKey,
  path: string,
) => Promise<unknown>;
export const LOCAL_HANDLER = Symbol.for('policyhub.grpc-runtime.local-unary-handler');

interface LocalMethod {
  invoke: LocalUnaryHandler;
}

let enabled = false;
const byAddress = new Map<string, Map<string, LocalMethod>>();
const tracer = trace.getTracer('@policyhub/grpc-runtime');

/** Turns in-process calls on for this process (embedded mode's composition root). */
export function enableInProcessCalls(): void {
  enabled = true;
}

/**
 * Offers the unary methods of a bound server's services for in-process calls under its address,
 * when in-process calls are on. Returns the function that withdraws them (on close).
 */
export function serveInProcess(
  address: string,
  services: ReadonlyArray<readonly [grpc.ServiceDefinition, grpc.UntypedServiceImplementation]>,
): () => void {
  if (!enabled) return () => {};
  const methods = new Map<string, LocalMethod>();
  for (const [definition, implementation] of services) {
    for (const [name, def] of Object.entries(definition)) {
      if (def.requestStream || def.responseStream) continue;
      const invoke = (implementation[name] as { [LOCAL_HANDLER]?: LocalUnaryHandler } | undefined)?.[
        LOCAL_HANDLER
      ];
      if (invoke) methods.set(def.path, { invoke });
    }
  }
  byAddress.set(address, methods);
  return () => {
    if (byAddress.get(address) === methods) byAddress.delete(address);
  };
}

/** The in-process handler for a method at an address, if this process serves it and calls are on. */
export function localMethod(address: string, path: string): LocalMethod | undefined {
  return enabled ? byAddress.get(address)?.get(path) : undefined;
}

/** The error a grpc-js client would have received for a status sent by the server. */
function asReceived(err: unknown): grpc.ServiceError {
  const e = err as Partial<grpc.ServiceError>;
  const code = typeof e.code === 'number' ? e.code : grpc.status.UNKNOWN;
  const details = e.details ?? 'internal error';
  return Object.assign(new Error(`${code} ${grpc.status[code]}: ${details}`), {
    code,
    details,
    metadata: e.metadata ?? new grpc.Metadata(),
  }) as grpc.ServiceError;
}

function spanAttributes(path: string) {
  const slash = path.lastIndexOf('/');
  return {
    'rpc.system': 'grpc',
    'rpc.service': path.slice(1, slash),
    'rpc.method': path.slice(slash + 1),
  };
}

function endSpan(span: Span, code: grpc.status): void {
  span.setAttribute('rpc.grpc.status_code', code);
  if (code !== grpc.status.OK) span.setStatus({ code: SpanStatusCode.ERROR, message: grpc.status[code] });
  span.end();
}

/**
 * Calls a local unary handler as a grpc-js client would call it over the network: the request and
 * the response through their codecs, a client span around a server span, failures as the status
 * the client would have read.
 */
export function callLocal(
  method: LocalMethod,
  def: grpc.MethodDefinition<unknown, unknown>,
  request: unknown,
  credential: NonNullable<ClientCredential['inProcess']>,
  principal: Principal | undefined,
): Promise<unknown> {
  const caller = credential.callerFor(principal);
  const name = `grpc.${def.path.slice(1)}`;
  const attributes = spanAttributes(def.path);
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, (clientSpan) =>
    tracer.startActiveSpan(
      name,
      { kind: SpanKind.SERVER, attributes },
      context.active(),
      async (serverSpan) => {
        try {
          const copy = def.requestDeserialize(def.requestSerialize(request));
          const response = await method.invoke(copy, caller, credential.key, def.path);
          const result = def.responseDeserialize(def.responseSerialize(response));
          endSpan(serverSpan, grpc.status.OK);
          endSpan(clientSpan, grpc.status.OK);
          return result;
        } catch (err) {
          const received = asReceived(err);
          endSpan(serverSpan, received.code);
          endSpan(clientSpan, received.code);
          throw received;
        }
      },
    ),
  );
}
