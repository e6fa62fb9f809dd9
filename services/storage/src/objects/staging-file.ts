import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rm, stat, utimes, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Digest, writeHashed } from './digest.js';

const SUFFIX = '.upload';

/**
 * A private temporary file an incoming stream is written to before it goes to the object store,
 * so the store receives a known size (no multipart) and nothing is stored before it is validated.
 * Counts and hashes what is written. remove() is safe to call at any time, more than once.
 *
 * While it exists, its modification time is refreshed every `keepAliveMs` (even when the sender
 * pauses), so a file left untouched for longer is an orphan of a process that died
 * (removeStale, run by the upload sweeper on start and periodically).
 */
export class StagingFile {
  private handle: FileHandle | undefined;
  private readonly digest = new Digest();
  private keepAlive: NodeJS.Timeout | undefined;

  private constructor(readonly path: string) {}

  static async create(dir: string, keepAliveMs: number): Promise<StagingFile> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = new StagingFile(join(dir, `${randomBytes(12).toString('hex')}${SUFFIX}`));
    file.handle = await open(file.path, 'wx', 0o600);
    file.keepAlive = setInterval(() => {
      const now = new Date();
      utimes(file.path, now, now).catch(() => {});
    }, keepAliveMs);
    file.keepAlive.unref();
    return file;
  }

  /**
   * Removes staging files in `dir` not modified for `olderThanMs` (their process died); returns
   * how many. Safe while other processes share the directory: their live files stay fresh.
   */
  static async removeStale(dir: string, olderThanMs: number): Promise<number> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const name of names) {
      if (!name.endsWith(SUFFIX)) continue;
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile() || info.mtimeMs > cutoff) continue;
      await rm(path, { force: true });
      removed += 1;
    }
    return removed;
  }

  get sizeBytes(): number {
    return this.digest.sizeBytes;
  }

  async write(chunk: Buffer): Promise<void> {
    if (!this.handle) throw new Error('staging file is closed');
    await writeHashed(this.handle, this.digest, chunk);
  }

  /** Finishes writing; returns the SHA-256 (hex) of everything written. */
  async seal(): Promise<string> {
    await this.handle?.close();
    this.handle = undefined;
    return this.digest.digest();
  }

  /** A fresh stream of the sealed content. */
  async read(): Promise<Readable> {
    const handle = await open(this.path, 'r');
    return handle.createReadStream();
  }

  async remove(): Promise<void> {
    clearInterval(this.keepAlive);
    await this.handle?.close().catch(() => {});
    this.handle = undefined;
    await rm(this.path, { force: true });
  }
}
