import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';

/**
 * Extracting policy set archives (tar.gz) in the evaluator. Storage validated each archive at
 * upload (and read what its configuration file declares: nothing here parses it); this reader
 * still refuses anything unsafe (absolute paths, `..`, links, devices) and bounds what it takes in.
 */

export const ARCHIVE_LIMITS = {
  maxEntries: 10_000,
  maxExpandedBytes: 200 * 1024 * 1024,
};

/** A safe relative path of an archive entry ('' for the root), or undefined when unsafe. */
export function entryPath(name: string): string | undefined {
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.includes('\\') || name.includes('\0'))
    return undefined;
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) return undefined;
  return segments.join('/');
}

/**
 * A directory named by a user (a policy set's `policies-path`) as a relative path inside an
 * archive ('' for the root): `./`, doubled and leading slashes and backslashes are forgiven;
 * undefined when it would leave the archive.
 */
export function archiveDirectory(path: string | undefined): string | undefined {
  const segments = (path ?? '')
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) return undefined;
  return segments.join('/');
}

type Source = AsyncIterable<Buffer> | NodeJS.ReadableStream;

/** Runs `onEntry` for each entry of a tar.gz stream; throws on a corrupt or unsafe archive. */
async function eachEntry(
  source: Source,
  onEntry: (path: string, header: tar.Headers, stream: NodeJS.ReadableStream) => Promise<void>,
): Promise<void> {
  const extract = tar.extract();
  const feeding = pipeline(
    source instanceof Readable ? source : Readable.from(source as AsyncIterable<Buffer>),
    createGunzip(),
    extract,
  );
  let entries = 0;
  let expanded = 0;
  const reading = (async () => {
    for await (const entry of extract) {
      const header = entry.header;
      entries++;
      expanded += header.size ?? 0;
      if (entries > ARCHIVE_LIMITS.maxEntries) throw new Error('the archive has too many entries');
      if (expanded > ARCHIVE_LIMITS.maxExpandedBytes) throw new Error('the archive expands too much');
      const path = entryPath(header.name);
      if (path === undefined) throw new Error(`the archive holds an unsafe path: ${header.name}`);
      if (header.type !== 'file' && header.type !== 'directory') {
        throw new Error(
          `the archive holds a ${header.type} entry (${header.name}); only files and directories are read`,
        );
      }
      await onEntry(path, header, entry);
      entry.resume();
    }
  })();
  await Promise.all([feeding, reading]);
}

/**
 * Extracts a tar.gz stream under `dest` (created 0700; files 0600): every path is checked to
 * stay inside `dest`, and only files and directories are written.
 */
export async function extractArchive(source: Source, dest: string): Promise<string[]> {
  const root = resolve(dest);
  await mkdir(root, { recursive: true, mode: 0o700 });
  const files: string[] = [];
  await eachEntry(source, async (path, header, stream) => {
    if (path === '') return;
    const target = join(root, path);
    if (!target.startsWith(root + sep)) throw new Error(`the archive holds an unsafe path: ${header.name}`);
    if (header.type === 'directory') {
      await mkdir(target, { recursive: true, mode: 0o700 });
      return;
    }
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await pipeline(stream, createWriteStream(target, { mode: 0o600, flags: 'wx' }));
    files.push(path);
  });
  return files;
}
