import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { archiveDirectory, entryPath, extractArchive } from './archive-reader.js';

async function tgz(
  entries: Array<{
    name: string;
    content?: string;
    type?: 'file' | 'directory' | 'symlink';
    linkname?: string;
  }>,
) {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => pack.on('end', resolve));
  for (const e of entries) {
    const content = Buffer.from(e.content ?? '');
    pack.entry(
      {
        name: e.name,
        type: e.type ?? 'file',
        linkname: e.linkname,
        size: e.type && e.type !== 'file' ? 0 : content.length,
      },
      content,
    );
  }
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('archive reader', () => {
  it('extracts files privately and refuses links and paths leaving the directory', async () => {
    const dest = mkdtempSync(join(tmpdir(), 'archive-test-'));
    dirs.push(dest);
    await extractArchive(
      Readable.from([await tgz([{ name: 'a/b.sentinel', content: 'main = rule { true }' }])]),
      join(dest, 'ok'),
    );
    expect(readFileSync(join(dest, 'ok/a/b.sentinel'), 'utf8')).toBe('main = rule { true }');
    expect(statSync(join(dest, 'ok/a/b.sentinel')).mode & 0o777).toBe(0o600);
    await expect(
      extractArchive(Readable.from([await tgz([{ name: '../escape', content: 'x' }])]), join(dest, 'bad1')),
    ).rejects.toThrow(/unsafe path/);
    await expect(
      extractArchive(
        Readable.from([await tgz([{ name: 'link', type: 'symlink', linkname: '/etc/passwd' }])]),
        join(dest, 'bad2'),
      ),
    ).rejects.toThrow(/symlink entry/);
    await expect(
      extractArchive(Readable.from([Buffer.from('not gzip')]), join(dest, 'bad3')),
    ).rejects.toThrow();
  });

  it('judges entry names', () => {
    expect(entryPath('./a//b/')).toBe('a/b');
    expect(entryPath('/etc/passwd')).toBeUndefined();
    expect(entryPath('a/../../b')).toBeUndefined();
    expect(entryPath('C:/x')).toBeUndefined();
  });

  it('reads a policies-path as a directory inside the archive', () => {
    expect(archiveDirectory(undefined)).toBe('');
    expect(archiveDirectory('./policies/prod/')).toBe('policies/prod');
    expect(archiveDirectory('/a//b')).toBe('a/b');
    expect(archiveDirectory('a\\b')).toBe('a/b');
    expect(archiveDirectory('a/../../etc')).toBeUndefined();
  });
});
