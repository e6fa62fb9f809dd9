import { contracts, type storageV1 } from '@policyhub/contracts';
import { createClient } from '@policyhub/grpc-runtime';
import { testAuth } from '@policyhub/testing';

const v1 = () => contracts().policyhub.storage.v1;

export type StorageClient = ReturnType<typeof createStorageClient>;

export function createStorageClient(address: string) {
  const client = createClient(v1().Storage, address, testAuth().credential);
  return Object.assign(client, {
    /** Streams `body` in chunks after the token, as the gateway does. */
    upload(token: string, body: Buffer, chunkSize = 16 * 1024): Promise<storageV1.UploadResponse__Output> {
      return new Promise((resolve, reject) => {
        const call = client.raw.Upload(client.metadata(), (err, res) => (err ? reject(err) : resolve(res!)));
        call.write({ header: { token } });
        for (let i = 0; i < body.length; i += chunkSize)
          call.write({ data: body.subarray(i, i + chunkSize) });
        call.end();
      });
    },
    putObject(
      key: string,
      body: Buffer,
      contentType = '',
      organizationId = '',
    ): Promise<storageV1.PutObjectResponse__Output> {
      return new Promise((resolve, reject) => {
        const call = client.raw.PutObject(client.metadata(), (err, res) =>
          err ? reject(err) : resolve(res!),
        );
        call.write({ header: { key, contentType, organizationId } });
        for (let i = 0; i < body.length; i += 16 * 1024)
          call.write({ data: body.subarray(i, i + 16 * 1024) });
        call.end();
      });
    },
    getObject(key: string): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        const call = client.raw.GetObject({ key }, client.metadata());
        call.on('data', (c: storageV1.GetObjectResponse__Output) => chunks.push(c.data));
        call.on('error', reject);
        call.on('end', () => resolve(Buffer.concat(chunks)));
      });
    },
  });
}
