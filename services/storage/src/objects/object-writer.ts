import type { ObjectStore, ObjectWriter, ObjectWriterOptions } from './object-store.js';
import { StagingFile } from './staging-file.js';

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
