import type * as grpc from '@grpc/grpc-js';
import { invalidAttribute } from '@policyhub/errors';
import { asServiceError, type RpcLogger } from '@policyhub/grpc-runtime';
import type { Readable } from 'node:stream';

/** A client-stream message of a `oneof part { <Rpc>Header header; bytes data; }`. */
interface StreamPart {
  part?: string | undefined;
  data?: Buffer | undefined;
}

/**
 * Splits a client stream whose first message is the `header` and the rest are `data` chunks: resolves the header, then yields the data. Reading stays demand-driven, so gRPC
 * flow control pushes back on the sender while we are busy. The stream is not destroyed when the
 * consumer stops early: the status still has to go out on it.
 *
 * Beware: when the client cancels, grpc-js may report the end of the stream just before it marks
 * the call cancelled, so a cancelled stream can look complete here; check `call.cancelled` after
 * the next I/O before acting on the data (receiveUpload does).
 */
export async function headerThenData<M extends StreamPart>(
  call: grpc.ServerReadableStream<M, unknown>,
): Promise<{ first: M; data: AsyncIterable<Buffer> }> {
  const headerField = 'header';
  const iterator = (call as unknown as Readable).iterator({ destroyOnReturn: false }) as AsyncIterator<M>;
  const first = await iterator.next();
  if (first.done || first.value.part !== headerField) {
    throw invalidAttribute(
      'STORAGE_INVALID_STREAM',
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
          'STORAGE_INVALID_STREAM',
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

/** Writes a readable to a server stream with backpressure; stops if the caller goes away. */
export async function streamTo<T>(
  call: grpc.ServerWritableStream<unknown, T>,
  source: Readable,
  wrap: (b: Buffer) => T,
) {
  try {
    for await (const chunk of source) {
      if (call.cancelled) return;
      if (!call.write(wrap(chunk as Buffer))) {
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
  } finally {
    source.destroy();
  }
}
