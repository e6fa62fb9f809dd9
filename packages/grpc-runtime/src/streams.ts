import type { Readable } from 'node:stream';
import type * as grpc from '@grpc/grpc-js';
import { type CodeOf, invalidAttribute } from '@policyhub/errors';
import type { Principal } from '@policyhub/permissions';
import { asServiceError, type ImplementOptions } from './server.js';

/*
 * The plumbing of streaming handlers, for services whose byte streams are a header message and
 * `bytes data` chunks: what implement() does for unary calls (the caller, error mapping), plus
 * backpressure both ways. Works the same over gRPC and in process (in-process.ts).
 */

type ErrorOptions = Pick<ImplementOptions, 'logger' | 'isUnavailable'>;

/**
 * The user behind a streaming call, from its verified credential (implement() has already refused
 * calls without one); undefined for service and worker callers.
 */
export function callerPrincipal(
  call: { metadata: grpc.Metadata },
  options: Pick<ImplementOptions, 'auth'>,
): Principal | undefined {
  const caller = options.auth.authenticate(call.metadata);
  return caller?.kind === 'user' ? caller.principal : undefined;
}

/** A client-stream message of a `oneof part { <header field>; bytes data; }`. */
interface StreamPart {
  part?: string | undefined;
  data?: Buffer | undefined;
}

export interface HeaderSpec {
  /** The oneof member the first message must carry (`header`, `planId`, …). */
  field: string;
  /** The field as the error names it (pointer `/<name>` and detail); default `field`. */
  name?: string;
  /** The service's code for a stream out of this order. */
  errorCode: CodeOf<'invalid'>;
}

/**
 * Splits a client stream whose first message carries the header and the rest carry `data`:
 * resolves the header, then yields the data on demand, so gRPC flow control pushes back on the
 * sender while the handler is busy. The stream is not destroyed when the consumer stops early:
 * the status still has to go out on it. A first message without the header, or a later one
 * without data, is `errorCode` (INVALID_ARGUMENT).
 *
 * Beware: when the client cancels, grpc-js may report the end of the stream just before it marks
 * the call cancelled, so a cancelled stream can look complete here; check `call.cancelled` after
 * the next I/O before acting on the data.
 */
export async function headerThenData<M extends StreamPart>(
  call: grpc.ServerReadableStream<M, unknown>,
  header: HeaderSpec,
): Promise<{ first: M; data: AsyncIterable<Buffer> }> {
  const name = header.name ?? header.field;
  const iterator = (call as unknown as Readable).iterator({ destroyOnReturn: false }) as AsyncIterator<M>;
  const first = await iterator.next();
  if (first.done || first.value.part !== header.field) {
    throw invalidAttribute(header.errorCode, `/${name}`, `the first message must carry ${name}`);
  }
  async function* data(): AsyncGenerator<Buffer> {
    while (true) {
      const next = await iterator.next();
      if (next.done) return;
      if (next.value.part !== 'data' || !next.value.data) {
        throw invalidAttribute(header.errorCode, 'data', `only the first message may carry ${name}`);
      }
      yield next.value.data;
    }
  }
  return { first: first.value, data: { [Symbol.asyncIterator]: data } };
}

/**
 * Answers a client-streaming call from an async handler, its failure mapped as implement() maps a
 * unary call's; a cancelled call gets no answer.
 */
export function respond<Res>(
  call: { cancelled: boolean },
  callback: grpc.sendUnaryData<Res>,
  method: string,
  options: ErrorOptions,
  work: () => Promise<Res>,
): void {
  work().then(
    (res) => callback(null, res),
    (err: unknown) => {
      if (call.cancelled) return;
      callback(asServiceError(err, method, options));
    },
  );
}

/**
 * Serves a server-streaming call of `{ data }` messages: `open` resolves the source (its errors,
 * e.g. NOT_FOUND, become the call's status before any data), then the chunks go out with
 * backpressure until the source ends (the call ends OK) or the caller goes away (the source is
 * closed). An error while streaming ends the call with its status.
 */
export async function serveStream(
  call: grpc.ServerWritableStream<unknown, { data: Buffer }>,
  method: string,
  options: ErrorOptions,
  open: () => Promise<AsyncIterable<Buffer>>,
): Promise<void> {
  try {
    const source = await open();
    for await (const chunk of source) {
      if (call.cancelled) return;
      if (!call.write({ data: chunk })) await drained(call, 'close');
    }
    call.end();
  } catch (err) {
    if (!call.cancelled) call.emit('error', asServiceError(err, method, options));
  }
}

/**
 * Resolves when a call whose write returned false can take more, or at `end`, after which it
 * takes nothing more: `close` on the server side, `status` on the client side.
 */
export function drained(call: NodeJS.EventEmitter, end: 'close' | 'status'): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      call.off('drain', done);
      call.off(end, done);
      resolve();
    };
    call.on('drain', done);
    call.on(end, done);
  });
}
