import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { notFound } from '@policyhub/errors';
import { type ClientCredential, createClient, deadline, readServiceError } from '@policyhub/grpc-runtime';
import type { ObjectStore } from '../domain/ports.js';
import { dependencyFailure } from './dependency-errors.js';

const CHUNK_BYTES = 64 * 1024;

/** Objects (plan JSON, policy set archives) through the storage service's streaming API. */
export function grpcObjectStore(
  address: string,
  credential: ClientCredential,
): ObjectStore & { close(): void } {
  const client = createClient(contracts().policyhub.storage.v1.Storage, address, credential);
  return {
    put(key, bytes, contentType, organizationId) {
      return new Promise<void>((resolve, reject) => {
        const call = client.clientStream('PutObject', { deadlineMs: 60_000 }, (err) => {
          if (!err) return resolve();
          try {
            dependencyFailure('storage', err);
          } catch (mapped) {
            reject(mapped);
          }
        });
        call.write({ header: { key, contentType, organizationId } });
        for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
          call.write({ data: bytes.subarray(offset, offset + CHUNK_BYTES) });
        }
        call.end();
      });
    },

    get(key) {
      return new Promise<Buffer | undefined>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const call = client.raw.GetObject({ key }, client.metadata(), deadline({ deadlineMs: 60_000 }));
        call.on('data', (chunk: { data: Buffer }) => chunks.push(chunk.data));
        call.on('end', () => resolve(Buffer.concat(chunks)));
        call.on('error', (err) => {
          if (readServiceError(err).status === grpc.status.NOT_FOUND) return resolve(undefined);
          try {
            dependencyFailure('storage', err);
          } catch (mapped) {
            reject(mapped);
          }
        });
      });
    },

    async stat(keys) {
      if (keys.length === 0) return [];
      try {
        const res = await client.StatObjects({ keys });
        return res.objects.map((o) => ({ key: o.key, sizeBytes: o.sizeBytes, sha256: o.sha256 }));
      } catch (err) {
        return dependencyFailure('storage', err);
      }
    },

    async *open(key) {
      const call = client.raw.GetObject({ key }, client.metadata(), deadline({ deadlineMs: 10 * 60_000 }));
      try {
        for await (const chunk of call as AsyncIterable<{ data: Buffer }>) yield chunk.data;
      } catch (err) {
        if (readServiceError(err).status === grpc.status.NOT_FOUND) {
          throw notFound('RUNS_OBJECT_NOT_FOUND');
        }
        dependencyFailure('storage', err);
      } finally {
        call.cancel();
      }
    },

    async deletePrefixes(prefixes) {
      try {
        await client.DeleteObjects({ keys: [], prefixes });
      } catch (err) {
        dependencyFailure('storage', err);
      }
    },
    close: () => client.close(),
  };
}
