import { Readable, Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Caller, ClientCredential, SigningKey } from './internal-auth.js';
import type { Principal } from '@policyhub/permissions';
import { copyMessage, messageCopies } from '@policyhub/contracts';
import { MAX_MESSAGE_BYTES } from './message-limit.js';

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
 * Client streams (uploads) are made in-process the same way (openLocalClientStream, below).
 * Server and bidirectional streams, worker tokens and every call in distributed mode use real gRPC.
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
  const clientStreams = new Map<string, LocalClientStreamMethod>();
  for (const [definition, implementation] of services) {
    for (const [name, def] of Object.entries(definition)) {
      if (def.requestStream && !def.responseStream)
        offerClientStream(clientStreams, def, implementation[name]);
      if (def.requestStream || def.responseStream) continue;
      const invoke = (implementation[name] as { [LOCAL_HANDLER]?: LocalUnaryHandler } | undefined)?.[
        LOCAL_HANDLER
      ];
      if (invoke) methods.set(def.path, { invoke });
    }
  }
  byAddress.set(address, methods);
  clientStreamsByAddress.set(address, clientStreams);
  return () => {
    if (byAddress.get(address) === methods) byAddress.delete(address);
    if (clientStreamsByAddress.get(address) === clientStreams) clientStreamsByAddress.delete(address);
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
 * The handler's answer, or DEADLINE_EXCEEDED once `deadlineMs` has passed, as a grpc-js client
 * reads it when the deadline of a call over the network passes (the handler, as on a gRPC
 * server, is not stopped: its own timeouts end it, and its late answer goes nowhere).
 */
function withinDeadline<T>(answer: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject({ code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' }),
      deadlineMs,
    );
  });
  return Promise.race([answer, expired]).finally(() => clearTimeout(timer));
}

/**
 * Calls a local unary handler as a grpc-js client would call it over the network: the request and
 * the response through their codecs, a client span around a server span, failures as the status
 * the client would have read, and the same deadline.
 */
export function callLocal(
  method: LocalMethod,
  def: grpc.MethodDefinition<unknown, unknown>,
  request: unknown,
  credential: NonNullable<ClientCredential['inProcess']>,
  principal: Principal | undefined,
  deadlineMs: number,
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
          const copies = messageCopies(def.path);
          const copy = copyMessage(copies.request, request, def.requestSerialize, def.requestDeserialize);
          const response = await withinDeadline(
            method.invoke(copy, caller, credential.key, def.path),
            deadlineMs,
          );
          const result = copyMessage(
            copies.response,
            response,
            def.responseSerialize,
            def.responseDeserialize,
          );
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

// ---------------------------------------------------------------------------------------------
// Client streams (uploads) in-process.
//
// The caller gets a Writable of request messages, the handler a Readable of their copies, as from
// grpc-js. Each message goes through the request codec (serialize, then deserialize) when it is
// written; the answer through the response codec. Backpressure: a write that fills the handler's
// buffer (16 messages, like a grpc-js server stream) is not acknowledged until the handler reads
// again, so the caller's Writable fills (16 more) and `write()` returns false until 'drain': at
// most 32 messages are held whatever the size of the body. A cancel (or the deadline) ends the
// call for both sides as over gRPC: the caller reads CANCELLED (DEADLINE_EXCEEDED), the handler's
// call is marked cancelled, emits 'cancelled' and is destroyed.

/**
 * The client-stream handler implement() attaches to a streaming handler, callable without gRPC:
 * it checks the caller and its key as the unary one does, then runs the handler with `call`.
 */
export type LocalStreamHandler = (
  call: LocalServerCall,
  callback: grpc.sendUnaryData<unknown>,
  caller: Caller,
  key: SigningKey,
) => void;
export const LOCAL_STREAM_HANDLER = Symbol.for('policyhub.grpc-runtime.local-stream-handler');

interface LocalClientStreamMethod {
  invoke: LocalStreamHandler;
}

const clientStreamsByAddress = new Map<string, Map<string, LocalClientStreamMethod>>();

/** The limit a grpc-js server of this project puts on a received message (createGrpcServer). */
const MAX_RECEIVE_MESSAGE_BYTES = MAX_MESSAGE_BYTES;

function offerClientStream(
  into: Map<string, LocalClientStreamMethod>,
  def: grpc.MethodDefinition<unknown, unknown>,
  handler: unknown,
): void {
  const invoke = (handler as { [LOCAL_STREAM_HANDLER]?: LocalStreamHandler } | undefined)?.[
    LOCAL_STREAM_HANDLER
  ];
  if (invoke) into.set(def.path, { invoke });
}

/** The in-process handler for a client-streaming method at an address, if served and calls are on. */
export function localClientStream(address: string, path: string): LocalClientStreamMethod | undefined {
  return enabled ? clientStreamsByAddress.get(address)?.get(path) : undefined;
}

/** What a client-streaming handler receives: a grpc-js ServerReadableStream's surface. */
export class LocalServerCall extends Readable {
  cancelled = false;
  constructor(
    private readonly path: string,
    readonly metadata: grpc.Metadata,
    private readonly deadline: grpc.Deadline,
    private readonly onRead: () => void,
  ) {
    super({ objectMode: true });
  }
  override _read(): void {
    this.onRead();
  }
  getPath(): string {
    return this.path;
  }
  getPeer(): string {
    return 'in-process';
  }
  getHost(): string {
    return 'in-process';
  }
  getDeadline(): grpc.Deadline {
    return this.deadline;
  }
  sendMetadata(): void {}
}

/** What the caller writes to: a grpc-js ClientWritableStream's surface. */
class LocalClientCall extends Writable {
  constructor(
    private readonly send: (message: unknown, done: () => void) => void,
    private readonly halfClose: () => void,
    readonly cancel: () => void,
  ) {
    super({ objectMode: true });
  }
  override _write(message: unknown, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.send(message, () => done());
  }
  override _final(done: (error?: Error | null) => void): void {
    this.halfClose();
    done();
  }
  getPeer(): string {
    return 'in-process';
  }
}

/** The status a grpc-js server sends for an error a handler passed to its callback. */
function statusOfServerError(err: unknown, trailer: grpc.Metadata | undefined): grpc.StatusObject {
  const e = (err ?? {}) as Partial<grpc.ServiceError>;
  const numeric = typeof e.code === 'number' && Number.isInteger(e.code);
  return {
    code: numeric ? (e.code as grpc.status) : grpc.status.UNKNOWN,
    details: numeric && typeof e.details === 'string' ? e.details : (e.message ?? 'Unknown Error'),
    metadata: trailer ?? e.metadata ?? new grpc.Metadata(),
  };
}

/**
 * Opens a client-streaming call to a local handler as a grpc-js client would open it over the
 * network (see the section comment): the returned Writable takes request messages; `callback`
 * gets the answer (or the error a grpc-js client would read) and the Writable then emits
 * 'status'. `metadata` is what the call would have carried (handlers may read the caller from
 * it); the caller is checked by its key, as on unary in-process calls.
 */
export function openLocalClientStream<Res>(
  method: LocalClientStreamMethod,
  def: grpc.MethodDefinition<unknown, unknown>,
  credential: NonNullable<ClientCredential['inProcess']>,
  principal: Principal | undefined,
  metadata: grpc.Metadata,
  deadlineMs: number,
  callback: (err: grpc.ServiceError | null, response?: Res) => void,
): grpc.ClientWritableStream<unknown> {
  const name = `grpc.${def.path.slice(1)}`;
  const attributes = spanAttributes(def.path);
  const clientSpan = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
  const clientContext = trace.setSpan(context.active(), clientSpan);
  const serverSpan = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, clientContext);

  let finished = false;
  /** The acknowledgement of the write the handler has not made room for yet. */
  let unacknowledged: (() => void) | undefined;
  const acknowledge = () => {
    const done = unacknowledged;
    unacknowledged = undefined;
    done?.();
  };
  const server = new LocalServerCall(def.path, metadata, Date.now() + deadlineMs, acknowledge);

  const finish = (status: grpc.StatusObject, response?: unknown) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    acknowledge();
    endSpan(serverSpan, status.code);
    process.nextTick(() => {
      endSpan(clientSpan, status.code);
      if (status.code === grpc.status.OK) callback(null, response as Res);
      else callback(asReceived(status));
      client.emit('status', status);
    });
  };
  /** The caller went away or ran out of time: both sides see the call end. */
  const cancelWith = (code: grpc.status, details: string) => {
    if (finished) return;
    finish({ code, details, metadata: new grpc.Metadata() });
    server.cancelled = true;
    server.emit('cancelled', 'cancelled');
    server.destroy();
  };

  const send = (message: unknown, done: () => void) => {
    if (finished) return done(); // the call has ended: the message goes nowhere, as over gRPC
    let copy: unknown;
    try {
      const bytes = def.requestSerialize(message);
      if (bytes.length > MAX_RECEIVE_MESSAGE_BYTES) {
        cancelWith(
          grpc.status.RESOURCE_EXHAUSTED,
          `Received message larger than max (${bytes.length} vs ${MAX_RECEIVE_MESSAGE_BYTES})`,
        );
        return done();
      }
      copy = def.requestDeserialize(bytes);
    } catch (err) {
      cancelWith(grpc.status.INTERNAL, `Request message serialization failure: ${(err as Error).message}`);
      return done();
    }
    if (server.push(copy)) done();
    else unacknowledged = done;
  };
  const halfClose = () => {
    if (!finished) server.push(null);
  };
  const client = new LocalClientCall(send, halfClose, () =>
    cancelWith(grpc.status.CANCELLED, 'Cancelled on client'),
  );
  const timer = setTimeout(() => cancelWith(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'), deadlineMs);
  timer.unref();

  const respond: grpc.sendUnaryData<unknown> = (err, value, trailer) => {
    if (finished) return;
    if (err) return finish(statusOfServerError(err, trailer ?? undefined));
    let response: unknown;
    try {
      response = def.responseDeserialize(def.responseSerialize(value));
    } catch (e) {
      return finish({
        code: grpc.status.INTERNAL,
        details: `Response serialization failure: ${(e as Error).message}`,
        metadata: new grpc.Metadata(),
      });
    }
    finish({ code: grpc.status.OK, details: 'OK', metadata: trailer ?? new grpc.Metadata() }, response);
  };
  context.with(trace.setSpan(clientContext, serverSpan), () => {
    try {
      method.invoke(server, respond, credential.callerFor(principal), credential.key);
    } catch {
      finish({ code: grpc.status.UNKNOWN, details: 'Unknown error', metadata: new grpc.Metadata() });
    }
  });
  return client as unknown as grpc.ClientWritableStream<unknown>;
}
