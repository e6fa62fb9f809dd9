import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { Digest, writeHashed } from './digest.js';
import {
  ObjectNotFoundError,
  ObjectSizeMismatchError,
  type ObjectStore,
  type ObjectWriter,
  type ObjectWriterOptions,
} from './object-store.js';

/** Temporary files live inside the root (same file system) so the final rename is atomic. */
const TMP_DIR = '.tmp';
/**
 * A put's temporary file is touched this often while it is written: the upload sweeper removes
 * temporaries untouched for two upload leases (at least 2 s).
 */
const PUT_KEEP_ALIVE_MS = 1000;

/**
 * Objects as files under `root` (embedded mode: `<DATA_DIR>/objects`). A put writes a private
 * temporary file, fsyncs it, and renames it over the key's path, so readers never see a partial
 * object and a crash leaves at most a stray temporary file. An upload writes the same way, through
 * openWriter, while it streams in (no staging copy).
 */
export class FilesystemObjectStore implements ObjectStore {
  readonly kind = 'filesystem' as const;

  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, body: Readable, size: number): Promise<void> {
    const writer = await this.openWriter(key, { keepAliveMs: PUT_KEEP_ALIVE_MS });
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (writer.sizeBytes + chunk.length > size) {
          throw new ObjectSizeMismatchError(key, size, writer.sizeBytes + chunk.length);
        }
        await writer.write(chunk);
      }
      if (writer.sizeBytes !== size) throw new ObjectSizeMismatchError(key, size, writer.sizeBytes);
      await writer.seal();
      await writer.publish();
    } catch (err) {
      await writer.discard();
      throw err;
    }
  }

  async openWriter(key: string, options: Pick<ObjectWriterOptions, 'keepAliveMs'>): Promise<ObjectWriter> {
    const target = this.pathOf(key);
    const tmpDir = join(this.root, TMP_DIR);
    const tmp = join(tmpDir, `${randomBytes(12).toString('hex')}.part`);
    const handle = await inDirectory(tmpDir, () => open(tmp, 'wx', 0o600));
    return new FilesystemObjectWriter(target, tmp, handle, options.keepAliveMs);
  }

  async get(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    // Open first so a missing object is an error here, not later on the stream.
    const handle = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
      throw isMissing(err) ? new ObjectNotFoundError(key) : err;
    });
    return handle.createReadStream();
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { size: s.size } : undefined;
    } catch (err) {
      if (isMissing(err as NodeJS.ErrnoException)) return undefined;
      throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const dir = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    const files = await this.walk(join(this.root, dir));
    return files.map((f) => relative(this.root, f).split(sep).join('/')).filter((k) => k.startsWith(prefix));
  }

  async delete(keys: string[]): Promise<void> {
    await Promise.all(keys.map((k) => rm(this.pathOf(k), { force: true })));
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (prefix.endsWith('/')) {
      await rm(join(this.root, prefix), { recursive: true, force: true });
      return;
    }
    await this.delete(await this.list(prefix));
  }

  async removeStaleTemporaries(olderThanMs: number): Promise<number> {
    const tmpDir = join(this.root, TMP_DIR);
    let names: string[];
    try {
      names = await readdir(tmpDir);
    } catch (err) {
      if (isMissing(err as NodeJS.ErrnoException)) return 0;
      throw err;
    }
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const name of names) {
      if (!name.endsWith('.part')) continue;
      const info = await stat(join(tmpDir, name)).catch(() => undefined);
      if (!info?.isFile() || info.mtimeMs > cutoff) continue;
      await rm(join(tmpDir, name), { force: true });
      removed += 1;
    }
    return removed;
  }

  private pathOf(key: string): string {
    const path = join(this.root, key);
    // Keys are validated upstream; this is the last line of defence against leaving the root.
    if (!path.startsWith(this.root + sep)) throw new Error(`object key escapes the store: ${key}`);
    return path;
  }

  private async walk(dir: string): Promise<string[]> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err as NodeJS.ErrnoException)) return [];
      throw err;
    }
    const nested = await Promise.all(
      entries
        .filter((e) => !(dir === this.root && e.name === TMP_DIR))
        .map((e) =>
          e.isDirectory()
            ? this.walk(join(dir, e.name))
            : Promise.resolve(e.isFile() ? [join(dir, e.name)] : []),
        ),
    );
    return nested.flat();
  }
}

/**
 * Writes into a private temporary file inside the store (same file system as the objects), fsyncs
 * it at seal and renames it over the key's path at publish. While it lives its modification time
 * is refreshed every `keepAliveMs`, even when the sender pauses, so the sweep of stale
 * temporaries (removeStaleTemporaries) never takes a live one.
 */
class FilesystemObjectWriter implements ObjectWriter {
  private readonly digest = new Digest();
  private readonly keepAlive: NodeJS.Timeout;
  private handle: FileHandle | undefined;
  private state: 'writing' | 'sealed' | 'published' | 'discarded' = 'writing';

  constructor(
    private readonly target: string,
    private readonly tmp: string,
    handle: FileHandle,
    keepAliveMs: number,
  ) {
    this.handle = handle;
    this.keepAlive = setInterval(() => {
      const now = new Date();
      utimes(this.tmp, now, now).catch(() => {});
    }, keepAliveMs);
    this.keepAlive.unref();
  }

  get sizeBytes(): number {
    return this.digest.sizeBytes;
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.state !== 'writing' || !this.handle) throw new Error('object writer is closed');
    await writeHashed(this.handle, this.digest, chunk);
  }

  async seal(): Promise<string> {
    if (this.state !== 'writing' || !this.handle) throw new Error('object writer is closed');
    const handle = this.handle;
    this.handle = undefined;
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    this.state = 'sealed';
    return this.digest.digest();
  }

  async publish(): Promise<void> {
    if (this.state !== 'sealed') throw new Error('only a sealed object can be published');
    await inDirectory(dirname(this.target), () => rename(this.tmp, this.target));
    this.state = 'published';
    clearInterval(this.keepAlive);
  }

  async discard(): Promise<void> {
    clearInterval(this.keepAlive);
    if (this.state === 'published' || this.state === 'discarded') return;
    this.state = 'discarded';
    await this.handle?.close().catch(() => {});
    this.handle = undefined;
    await rm(this.tmp, { force: true });
  }
}

/** Runs `op`, creating `dir` first only when `op` finds it missing (the rare case: one syscall less). */
async function inDirectory<T>(dir: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(dir, { recursive: true });
    return op();
  }
}

const isMissing = (err: NodeJS.ErrnoException): boolean => err.code === 'ENOENT' || err.code === 'ENOTDIR';
