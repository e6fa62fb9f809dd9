import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * A private temporary file an incoming stream is written to before it goes to the object store,
 * so the store receives a known size (no multipart) and nothing is stored before it is validated.
 * Counts and hashes what is written. remove() is safe to call at any time, more than once.
 */
export class StagingFile {
  private handle: FileHandle | undefined;
  private readonly hash = createHash('sha256');
  private digest: string | undefined;
  sizeBytes = 0;

  private constructor(readonly path: string) {}

  static async create(dir: string): Promise<StagingFile> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = new StagingFile(join(dir, `${randomBytes(12).toString('hex')}.upload`));
    file.handle = await open(file.path, 'wx', 0o600);
    return file;
  }

  async write(chunk: Buffer): Promise<void> {
    if (!this.handle) throw new Error('staging file is closed');
    this.hash.update(chunk);
    this.sizeBytes += chunk.length;
    let offset = 0;
    while (offset < chunk.length) {
      const { bytesWritten } = await this.handle.write(chunk, offset);
      offset += bytesWritten;
    }
  }

  /** Finishes writing; returns the SHA-256 (hex) of everything written. */
  async seal(): Promise<string> {
    await this.handle?.close();
    this.handle = undefined;
    this.digest ??= this.hash.digest('hex');
    return this.digest;
  }

  /** A fresh stream of the sealed content. */
  async read(): Promise<Readable> {
    const handle = await open(this.path, 'r');
    return handle.createReadStream();
  }

  async remove(): Promise<void> {
    await this.handle?.close().catch(() => {});
    this.handle = undefined;
    await rm(this.path, { force: true });
  }
}
