import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from 'minio';
import { exactSize, ObjectNotFoundError, type ObjectStore } from './object-store.js';

export interface S3Settings {
  /** e.g. `http://127.0.0.1:9000`; the scheme selects TLS. */
  endpoint: string;
  bucket: string;
  accessKey: string;
  secretKey: string;
  region: string;
}

/** S3 deletes at most this many keys per request. */
const DELETE_BATCH = 1000;
/** Lifetime of the pre-signed URL a put uses; only needs to outlast one transfer. */
const PRESIGN_SECONDS = 15 * 60;

/**
 * Objects in an S3 bucket (MinIO, AWS, or s3rver in tests) through the `minio` client. Puts are
 * one streamed PUT with a known Content-Length to a pre-signed URL: minio's own putObject would
 * buffer a whole object below its part size in memory, and use multipart above it.
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;

  private constructor(
    private readonly client: Client,
    private readonly bucket: string,
  ) {}

  /** Connects and creates the bucket when it does not exist yet. */
  static async connect(settings: S3Settings): Promise<S3ObjectStore> {
    const url = new URL(settings.endpoint);
    const useSSL = url.protocol === 'https:';
    const client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: settings.accessKey,
      secretKey: settings.secretKey,
      region: settings.region,
      pathStyle: true,
    });
    if (!(await client.bucketExists(settings.bucket))) {
      try {
        await client.makeBucket(settings.bucket, settings.region);
      } catch (err) {
        // Another replica created it in the meantime.
        if (!isCode(err, 'BucketAlreadyOwnedByYou', 'BucketAlreadyExists')) throw err;
      }
    }
    return new S3ObjectStore(client, settings.bucket);
  }

  async put(
    key: string,
    body: Readable,
    size: number,
    contentType = 'application/octet-stream',
  ): Promise<void> {
    const url = new URL(await this.client.presignedPutObject(this.bucket, key, PRESIGN_SECONDS));
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'PUT',
      headers: { 'content-length': String(size), 'content-type': contentType },
    });
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', reject);
    });
    // If the transfer fails, the pipeline's error is the one reported.
    response.catch(() => {});
    await pipeline(body, exactSize(key, size), request);
    const res = await response;
    const text = await readText(res);
    if (res.statusCode !== 200) {
      throw new Error(`S3 PUT ${key} failed with HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    }
  }

  async get(key: string): Promise<Readable> {
    try {
      return await this.client.getObject(this.bucket, key);
    } catch (err) {
      if (isCode(err, 'NoSuchKey', 'NotFound')) throw new ObjectNotFoundError(key);
      throw err;
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const s = await this.client.statObject(this.bucket, key);
      return { size: s.size };
    } catch (err) {
      if (isCode(err, 'NoSuchKey', 'NotFound')) return undefined;
      throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const item of this.client.listObjectsV2(this.bucket, prefix, true)) {
      if (item.name) keys.push(item.name);
    }
    return keys;
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      await this.client.removeObjects(this.bucket, keys.slice(i, i + DELETE_BATCH));
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    await this.delete(await this.list(prefix));
  }
}

const isCode = (err: unknown, ...codes: string[]): boolean =>
  typeof err === 'object' && err !== null && codes.includes((err as { code?: string }).code ?? '');

async function readText(res: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
