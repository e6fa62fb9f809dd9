import { type Readable, Transform } from 'node:stream';

/**
 * The object store port: where archives and other blobs live. Keys are validated by the caller
 * (domain/object-keys.ts). Implementations: filesystem (embedded default) and S3 (minio client).
 * Every implementation passes test/object-store-contract.ts.
 *
 * - put streams `body` and must receive exactly `size` bytes (known in advance: no multipart);
 *   it replaces an existing object atomically (readers see the old or the new one, never a mix).
 * - get streams the object; it rejects with ObjectNotFoundError when absent.
 * - delete and deletePrefix ignore keys that do not exist.
 */
export interface ObjectStore {
  readonly kind: 'filesystem' | 's3';
  put(key: string, body: Readable, size: number, contentType?: string): Promise<void>;
  /**
   * Writes an object as it streams in, visible only once published (ObjectWriter below). Stores
   * that must know the size first do not implement it; openObjectWriter (object-writer.ts) then
   * stages the bytes.
   */
  openWriter?(key: string, options: ObjectWriterOptions): Promise<ObjectWriter>;
  get(key: string): Promise<Readable>;
  /** Size in bytes, or undefined when absent. */
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Keys starting with `prefix`, in no particular order. */
  list(prefix: string): Promise<string[]>;
  delete(keys: string[]): Promise<void>;
  deletePrefix(prefix: string): Promise<void>;
  /**
   * Removes the store's own temporary files not modified for `olderThanMs` (a put interrupted by
   * a crash); returns how many. Stores whose puts leave nothing behind do not implement it.
   */
  removeStaleTemporaries?(olderThanMs: number): Promise<number>;
  close?(): Promise<void>;
}

/**
 * An object being written under its key, in three steps so that nothing is visible before the
 * caller has decided to keep it (docs/adr/0037):
 * - `write` the bytes as they arrive (counted and hashed);
 * - `seal`: everything is written and durable, but not yet visible under the key;
 * - `publish`: the object appears under its key, replacing any previous one atomically (readers
 *   see the old or the new object, never a mix). The upload pipeline publishes inside the
 *   transaction that records the object, while it holds the session's row lock.
 * `discard` drops whatever was written and not published; safe at any time, more than once.
 * An attempt that dies leaves only a temporary file, which the upload sweeper removes (ADR 0024).
 */
export interface ObjectWriter {
  /** Bytes written so far. */
  readonly sizeBytes: number;
  write(chunk: Buffer): Promise<void>;
  /** Finishes writing and makes the bytes durable; returns their SHA-256 (hex). */
  seal(): Promise<string>;
  publish(): Promise<void>;
  discard(): Promise<void>;
}

export interface ObjectWriterOptions {
  contentType: string;
  /** How often the writer's temporary file is touched while it lives (see StagingFile). */
  keepAliveMs: number;
  /** Where a store without a writer of its own stages the bytes (UPLOAD_TMP_DIR). */
  stagingDir: string;
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`object not found: ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

export class ObjectSizeMismatchError extends Error {
  constructor(
    readonly key: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`object ${key}: expected ${expected} bytes, received ${actual}`);
    this.name = 'ObjectSizeMismatchError';
  }
}

/** Passes bytes through and fails the stream unless exactly `size` bytes went by. */
export function exactSize(key: string, size: number): Transform {
  let received = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > size) return done(new ObjectSizeMismatchError(key, size, received));
      done(null, chunk);
    },
    flush(done) {
      done(received === size ? null : new ObjectSizeMismatchError(key, size, received));
    },
  });
}
