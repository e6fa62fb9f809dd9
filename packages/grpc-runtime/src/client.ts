import * as grpc from '@grpc/grpc-js';
import { callLocal, localClientStream, localMethod, openLocalClientStream } from './in-process.js';
import type { ClientCredential } from './internal-auth.js';
import type { Principal } from '@policyhub/permissions';
import { MAX_MESSAGE_BYTES } from './message-limit.js';

export interface CallOptions {
  principal?: Principal | undefined;
  /** Milliseconds; default 10 s. */
  deadlineMs?: number;
}

/** The unary methods of a generated client as promise-returning functions. */
export type PromiseClient<C> = {
  [K in keyof C as K extends `${Uppercase<string>}${string}` ? K : never]: C[K] extends (
    argument: infer Req,
    callback: grpc.requestCallback<infer Res>,
  ) => grpc.ClientUnaryCall
    ? (request: Req, options?: CallOptions) => Promise<Res>
    : never;
};

type ClientCtor<C> = (new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: object,
) => C) & {
  service: grpc.ServiceDefinition;
};

/** Client-side balancing per call over every resolved address (ADR 0025). */
export const ROUND_ROBIN = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

const channelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  'grpc.keepalive_time_ms': 30_000,
  // After a downstream restart, calls fail fast (UNAVAILABLE → 503) only until the next reconnect
  // attempt; grpc-js's default backoff grows to 2 minutes, which would keep a recovered service
  // unreachable long after it is back.
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': 2_000,
  // Channelz (grpc-js' introspection service, never served here) counts and timestamps every call.
  'grpc.enable_channelz': 0,
};

/**
 * A target written with a resolver scheme (`dns:///name:port`, `ipv4:a:p,b:p`) names replicas:
 * every address gets a connection and calls rotate over them, so behind a headless Service each
 * call goes to the next pod (ADR 0025). A plain `host:port` is one process (npm start, compose,
 * tests) and keeps the default pick_first, which waits for a restarted process to accept again
 * instead of failing the calls of its reconnect backoff.
 */
export const isBalancedTarget = (address: string): boolean => /^(?:dns:\/\/\/|ipv[46]:)/.test(address);

const channelOptionsFor = (address: string) =>
  isBalancedTarget(address) ? { ...channelOptions, 'grpc.service_config': ROUND_ROBIN } : channelOptions;

export function buildMetadata(credential: ClientCredential, options: CallOptions | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  credential.apply(metadata, options?.principal);
  return metadata;
}

/** A call's deadline unless its options say otherwise, over gRPC and in-process alike. */
export const DEFAULT_DEADLINE_MS = 10_000;

export function deadline(options: CallOptions | undefined): grpc.CallOptions {
  return { deadline: Date.now() + (options?.deadlineMs ?? DEFAULT_DEADLINE_MS) };
}

/** The client-streaming methods of a generated client (`Upload`, `PutObject`, …). */
export type ClientStreamName<C> = {
  [K in keyof C]: K extends `${Uppercase<string>}${string}`
    ? C[K] extends (callback: grpc.requestCallback<infer _Res>) => grpc.ClientWritableStream<infer _Req>
      ? K
      : never
    : never;
}[keyof C];
type ClientStreamTypes<C, K extends keyof C> = C[K] extends (
  callback: grpc.requestCallback<infer Res>,
) => grpc.ClientWritableStream<infer Req>
  ? { req: Req; res: Res }
  : never;

type OpenClientStream = (
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, response?: unknown) => void,
) => grpc.ClientWritableStream<unknown>;

export interface ClientExtras<C> {
  /**
   * Opens a client-streaming call (write the messages, then end): in embedded mode to a service of
   * this process in-process (in-process.ts), otherwise over gRPC with this client's credential.
   * Default deadline 10 s, as for unary calls.
   */
  clientStream<K extends ClientStreamName<C>>(
    method: K,
    options: CallOptions | undefined,
    callback: (err: grpc.ServiceError | null, response?: ClientStreamTypes<C, K>['res']) => void,
  ): grpc.ClientWritableStream<ClientStreamTypes<C, K>['req']>;
  /** The underlying client, for server-streaming calls (pass `metadata()` to each). */
  raw: C;
  /** Metadata carrying this client's credential (and the principal, when given). */
  metadata(options?: CallOptions): grpc.Metadata;
  close(): void;
}

/**
 * Creates a client for a generated service constructor and wraps its unary methods in promises.
 * Every call carries `credential` (a signed assertion, or a worker's token). In embedded mode a
 * unary call to a service of this process is made in-process (in-process.ts).
 */
export function createClient<C extends grpc.Client>(
  Ctor: ClientCtor<C>,
  address: string,
  credential: ClientCredential,
): PromiseClient<C> & ClientExtras<C> {
  const raw = new Ctor(address, grpc.credentials.createInsecure(), channelOptionsFor(address));
  const metadata = (options?: CallOptions) => buildMetadata(credential, options);
  const clientStream = (
    name: string,
    options: CallOptions | undefined,
    callback: (err: grpc.ServiceError | null, response?: unknown) => void,
  ) => {
    const def = Ctor.service[name];
    if (!def?.requestStream || def.responseStream)
      throw new Error(`${name} is not a client-streaming method`);
    const local = credential.inProcess ? localClientStream(address, def.path) : undefined;
    if (local) {
      return openLocalClientStream(
        local,
        def,
        credential.inProcess!,
        options?.principal,
        metadata(options),
        options?.deadlineMs ?? DEFAULT_DEADLINE_MS,
        callback,
      );
    }
    const open = (raw as unknown as Record<string, OpenClientStream>)[name]!;
    return open.call(raw, metadata(options), deadline(options), callback);
  };
  const wrapped: Record<string, unknown> = { raw, metadata, clientStream, close: () => raw.close() };
  for (const [name, def] of Object.entries(Ctor.service)) {
    if (def.requestStream || def.responseStream) continue;
    const method = (raw as unknown as Record<string, Function>)[name]!.bind(raw);
    wrapped[name] = (request: unknown, options?: CallOptions) => {
      const local = credential.inProcess ? localMethod(address, def.path) : undefined;
      if (local)
        return callLocal(
          local,
          def,
          request,
          credential.inProcess!,
          options?.principal,
          options?.deadlineMs ?? DEFAULT_DEADLINE_MS,
        );
      return new Promise((resolve, reject) => {
        method(
          request,
          metadata(options),
          deadline(options),
          (err: grpc.ServiceError | null, res: unknown) => (err ? reject(err) : resolve(res)),
        );
      });
    };
  }
  return wrapped as PromiseClient<C> & ClientExtras<C>;
}
