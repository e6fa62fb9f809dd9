import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import {
  type ClientCredential,
  createClient,
  deadline,
  drained,
  readServiceError,
} from '@policyhub/grpc-runtime';
import type { ObjectStreams, ObjectWriter } from '../domain/ports.js';
import { dependencyFailure } from './dependency-errors.js';

/** Long enough for the largest object at a slow pace; storage enforces its own upload timeout. */
const STREAM_DEADLINE_MS = 60 * 60 * 1000;

const mapped = (err: unknown): unknown => {
  try {
    dependencyFailure('storage', err);
  } catch (e) {
    return e;
  }
};

/**
 * Plan JSON and configuration archives through storage's streaming API without holding them in
 * memory: writes wait while the gRPC stream is full, reads yield chunks as they arrive.
 */
export function grpcObjectStreams(
  address: string,
  credential: ClientCredential,
): ObjectStreams & { close(): void } {
  const client = createClient(contracts().policyhub.storage.v1.Storage, address, credential);
  return {
    openWriter(key, contentType, organizationId): ObjectWriter {
      let failure: unknown;
      let answered = false;
      let resolveDone!: (size: number) => void;
      let rejectDone!: (err: unknown) => void;
      const done = new Promise<number>((resolve, reject) => {
        resolveDone = resolve;
        rejectDone = reject;
      });
      done.catch(() => {});
      const call = client.clientStream('PutObject', { deadlineMs: STREAM_DEADLINE_MS }, (err, info) => {
        answered = true;
        if (err) {
          failure = mapped(err);
          rejectDone(failure);
        } else {
          resolveDone(info?.sizeBytes ?? 0);
        }
      });
      call.on('error', () => {}); // reported through the callback
      call.write({ header: { key, contentType, organizationId } });
      return {
        async write(chunk) {
          if (failure) throw failure;
          if (answered) throw mapped(new Error('storage ended the upload early'));
          if (!call.write({ data: chunk })) await drained(call, 'status');
          if (failure) throw failure;
        },
        async finish() {
          if (failure) throw failure;
          call.end();
          return { sizeBytes: await done };
        },
        abort() {
          if (!answered) call.cancel();
        },
      };
    },

    async openReader(key) {
      const call = client.raw.GetObject(
        { key },
        client.metadata(),
        deadline({ deadlineMs: STREAM_DEADLINE_MS }),
      );
      const iterator = (call as unknown as AsyncIterable<{ data: Buffer }>)[Symbol.asyncIterator]();
      let first: IteratorResult<{ data: Buffer }>;
      try {
        first = await iterator.next();
      } catch (err) {
        if (readServiceError(err).status === grpc.status.NOT_FOUND) return undefined;
        throw mapped(err);
      }
      async function* chunks(): AsyncGenerator<Buffer> {
        try {
          if (first.done) return;
          yield first.value.data;
          while (true) {
            const next = await iterator.next();
            if (next.done) return;
            yield next.value.data;
          }
        } catch (err) {
          throw mapped(err);
        } finally {
          call.cancel();
        }
      }
      return chunks();
    },
    close: () => client.close(),
  };
}
