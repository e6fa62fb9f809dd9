import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { exactSize, ObjectNotFoundError, type ObjectStore } from './object-store.js';

/** Temporary files live inside the root (same file system) so the final rename is atomic. */
const TMP_DIR = '.tmp';

/**
 * Objects as files under `root` (embedded mode: `<DATA_DIR>/objects`). A put writes a private
 * temporary file, fsyncs it, and renames it over the key's path, so readers never see a partial
 * object and a crash leaves at most a stray temporary file.
 */
export class FilesystemObjectStore implements ObjectStore {
  readonly kind = 'filesystem' as const;

  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, body: Readable, size: number): Promise<void> {
    const target = this.pathOf(key);
    const tmpDir = join(this.root, TMP_DIR);
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(tmpDir, `${randomBytes(12).toString('hex')}.part`);
    const file = createWriteStream(tmp, { flags: 'wx', mode: 0o600 });
    try {
      await pipeline(body, exactSize(key, size), file);
      const handle = await open(tmp, 'r');
      await handle.sync().finally(() => handle.close());
      await mkdir(dirname(target), { recursive: true });
      await rename(tmp, target);
    } catch (err) {
      // pipeline() rejects as soon as one stream fails, possibly while the file stream is still
      // opening its file: wait for it to close, or the file would appear after the rm below.
      if (!file.closed) await new Promise<void>((done) => file.once('close', () => done()));
      await rm(tmp, { force: true });
      throw err;
    }
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

const isMissing = (err: NodeJS.ErrnoException): boolean => err.code === 'ENOENT' || err.code === 'ENOTDIR';
