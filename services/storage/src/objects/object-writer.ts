import { StagingFile } from '../uploads/staging-file.js';
import type { ObjectStore } from './object-store.js';

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

/**
 * A writer for `key`: the store's own (the filesystem store writes straight into a temporary file
 * next to the objects and renames it at publish: one file, one fsync), or, for a store that needs
 * the size before it receives anything (S3: one PUT with a known length, no multipart), a staging
 * file that is sent to the store at publish.
 */
export function openObjectWriter(store: ObjectStore, key: string, options: ObjectWriterOptions) {
  return store.openWriter?.(key, options) ?? StagedObjectWriter.open(store, key, options);
}

/** Stages the bytes in UPLOAD_TMP_DIR and puts them into the store, with their size, at publish. */
class StagedObjectWriter implements ObjectWriter {
  private constructor(
    private readonly store: ObjectStore,
    private readonly key: string,
    private readonly contentType: string,
    private readonly staging: StagingFile,
  ) {}

  static async open(store: ObjectStore, key: string, options: ObjectWriterOptions): Promise<ObjectWriter> {
    const staging = await StagingFile.create(options.stagingDir, options.keepAliveMs);
    return new StagedObjectWriter(store, key, options.contentType, staging);
  }

  get sizeBytes(): number {
    return this.staging.sizeBytes;
  }

  write(chunk: Buffer): Promise<void> {
    return this.staging.write(chunk);
  }

  seal(): Promise<string> {
    return this.staging.seal();
  }

  async publish(): Promise<void> {
    await this.store.put(this.key, await this.staging.read(), this.staging.sizeBytes, this.contentType);
    await this.staging.remove();
  }

  discard(): Promise<void> {
    return this.staging.remove();
  }
}
