import type * as grpc from '@grpc/grpc-js';
import { invalidAttribute } from '@policyhub/errors';
import {
  asServiceError,
  type ImplementOptions,
  type Principal,
  type RpcLogger,
} from '@policyhub/grpc-runtime';
import type { Readable } from 'node:stream';

/*
 * Stream plumbing for the runs service's streaming RPCs (the same shape as storage's; services
 * share no code but the packages).
 */

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

interface StreamPart {
  part?: string | undefined;
  data?: Buffer | undefined;
}

/**
 * Splits a client stream whose first message carries `headerField` and the rest carry `data`:
 * resolves the header, then yields the data on demand (gRPC flow control pushes back on the
 * sender while we are busy).
 */
export async function headerThenData<M extends StreamPart>(
  call: grpc.ServerReadableStream<M, unknown>,
  headerField: string,
): Promise<{ first: M; data: AsyncIterable<Buffer> }> {
  const iterator = (call as unknown as Readable).iterator({ destroyOnReturn: false }) as AsyncIterator<M>;
  const first = await iterator.next();
  if (first.done || first.value.part !== headerField) {
    throw invalidAttribute(
      'RUNS_INVALID_STREAM',
      `/${headerField}`,
      `the first message must carry ${headerField}`,
    );
  }
  async function* data(): AsyncGenerator<Buffer> {
    while (true) {
      const next = await iterator.next();
      if (next.done) return;
      if (next.value.part !== 'data' || !next.value.data) {
        throw invalidAttribute(
          'RUNS_INVALID_STREAM',
          'data',
          `only the first message may carry ${headerField}`,
        );
      }
      yield next.value.data;
    }
  }
  return { first: first.value, data: { [Symbol.asyncIterator]: data } };
}

/** Answers a client-streaming call from an async handler; a cancelled call gets no answer. */
export function respond<Res>(
  call: { cancelled: boolean },
  callback: grpc.sendUnaryData<Res>,
  method: string,
  options: { logger: RpcLogger; isUnavailable?: (err: unknown) => boolean },
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
 * Serves a server-streaming call: `open` resolves the source (its errors, e.g. NOT_FOUND, become
 * the call's status before any data), then the chunks go out with backpressure until the source
 * ends or the caller goes away.
 */
export async function serveStream(
  call: grpc.ServerWritableStream<unknown, { data: Buffer }>,
  method: string,
  options: { logger: RpcLogger; isUnavailable?: (err: unknown) => boolean },
  open: () => Promise<AsyncIterable<Buffer>>,
): Promise<void> {
  try {
    const source = await open();
    for await (const chunk of source) {
      if (call.cancelled) return;
      if (!call.write({ data: chunk })) {
        await new Promise<void>((resolve) => {
          const done = () => {
            call.off('drain', done);
            call.off('close', done);
            resolve();
          };
          call.on('drain', done);
          call.on('close', done);
        });
      }
    }
    call.end();
  } catch (err) {
    if (!call.cancelled) call.emit('error', asServiceError(err, method, options));
  }
}
