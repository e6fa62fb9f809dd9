import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from '../src/domain/upload-limits.js';
import { ArchiveInspector, type Inspection } from '../src/archives/archive-inspector.js';
import { padded, rawFile, rawGnuLong, rawHeader, rawPax, rawTar } from '@policyhub/testing';
import { type ArchiveEntry, gzipOf, policyArchive, tarGzOf, tarOf } from './support/archives.js';

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

async function inspect(
  bytes: Buffer,
  limits: Partial<UploadLimits> = {},
  chunkSize = 1000,
): Promise<Inspection> {
  const inspector = new ArchiveInspector({ ...DEFAULT_UPLOAD_LIMITS, ...limits });
  for (let i = 0; i < bytes.length && !inspector.isOverLimit; i += chunkSize) {
    await inspector.write(bytes.subarray(i, i + chunkSize));
  }
  return inspector.finish();
}

const rejectionOf = async (bytes: Buffer, limits: Partial<UploadLimits> = {}) => {
  const result = await inspect(bytes, limits);
  if (result.ok) throw new Error('expected the archive to be rejected');
  return result.rejection;
};

const archive = (entries: ArchiveEntry[]) => tarGzOf(entries);

describe('archive inspector: valid archives', () => {
  it('accepts a policy archive and records a manifest of its files with sizes and hashes', async () => {
    const bytes = await policyArchive();
    const result = await inspect(bytes);
    expect(result).toEqual({
      ok: true,
      sizeBytes: bytes.length,
      files: [
        {
          path: 'sentinel.hcl',
          sizeBytes: expect.any(Number),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
        { path: 'policies/allow-all.sentinel', sizeBytes: 21, sha256: sha256('main = rule { true }\n') },
      ],
    });
  });

  it('gives the same verdict whatever the chunking (one byte at a time)', async () => {
    const bytes = await policyArchive();
    const result = await inspect(bytes, {}, 1);
    expect(result.ok).toBe(true);
  });

  it('normalises ./ prefixes and accepts links that stay inside the archive', async () => {
    const result = await inspect(
      await archive([
        { name: './main.sentinel', content: 'main = rule { true }' },
        { name: './lib/', type: 'directory' },
        { name: './lib/common.sentinel', content: 'x = 1' },
        { name: 'modules/current', type: 'symlink', linkname: '../lib' },
        { name: 'copy.sentinel', type: 'link', linkname: 'main.sentinel' },
      ]),
    );
    expect(result.ok && result.files.map((f) => f.path)).toEqual(['main.sentinel', 'lib/common.sentinel']);
  });
});

describe('archive inspector: hostile or broken archives are rejected with a reason', () => {
  it.each([
    [
      'a relative path climbing out',
      [{ name: '../../etc/cron.d/evil', content: 'x' }],
      'STORAGE_ARCHIVE_PATH_TRAVERSAL',
    ],
    ['a traversal hidden mid-path', [{ name: 'a/../../b', content: 'x' }], 'STORAGE_ARCHIVE_PATH_TRAVERSAL'],
    ['a backslash traversal', [{ name: 'a\\..\\..\\b', content: 'x' }], 'STORAGE_ARCHIVE_PATH_TRAVERSAL'],
    ['an absolute path', [{ name: '/etc/passwd', content: 'x' }], 'STORAGE_ARCHIVE_ABSOLUTE_PATH'],
    [
      'a symlink to an absolute path',
      [
        { name: 'passwd', type: 'symlink', linkname: '/etc/passwd' },
        { name: 'f', content: 'x' },
      ],
      'STORAGE_ARCHIVE_LINK_ESCAPE',
    ],
    [
      'a symlink climbing out',
      [
        { name: 'a/up', type: 'symlink', linkname: '../../x' },
        { name: 'f', content: 'x' },
      ],
      'STORAGE_ARCHIVE_LINK_ESCAPE',
    ],
    [
      'a hard link climbing out',
      [
        { name: 'f', content: 'x' },
        { name: 'h', type: 'link', linkname: '../outside' },
      ],
      'STORAGE_ARCHIVE_LINK_ESCAPE',
    ],
    [
      'a file written through a symlink',
      [
        { name: 'dir', type: 'symlink', linkname: '.' },
        { name: 'dir/f', content: 'x' },
      ],
      'STORAGE_ARCHIVE_LINK_ESCAPE',
    ],
    [
      'a symlink chain that escapes only once a later link is known',
      [
        { name: 'f', content: 'x' },
        { name: 'a', type: 'symlink', linkname: 'x/y/../..' },
        { name: 'x', type: 'symlink', linkname: '.' },
      ],
      'STORAGE_ARCHIVE_LINK_ESCAPE',
    ],
    [
      'a symlink loop',
      [
        { name: 'f', content: 'x' },
        { name: 'loop', type: 'symlink', linkname: 'loop/x' },
      ],
      'STORAGE_ARCHIVE_LINK_ESCAPE',
    ],
    [
      'a character device',
      [
        { name: 'f', content: 'x' },
        { name: 'dev/null', type: 'character-device' },
      ],
      'STORAGE_ARCHIVE_SPECIAL_FILE',
    ],
    [
      'a block device',
      [
        { name: 'f', content: 'x' },
        { name: 'sda', type: 'block-device' },
      ],
      'STORAGE_ARCHIVE_SPECIAL_FILE',
    ],
    [
      'a FIFO',
      [
        { name: 'f', content: 'x' },
        { name: 'pipe', type: 'fifo' },
      ],
      'STORAGE_ARCHIVE_SPECIAL_FILE',
    ],
    ['only directories', [{ name: 'a/', type: 'directory' }], 'STORAGE_ARCHIVE_EMPTY'],
    ['no entries at all', [], 'STORAGE_ARCHIVE_EMPTY'],
  ] as Array<[string, ArchiveEntry[], string]>)('%s', async (_label, entries, code) => {
    const r = await rejectionOf(await archive(entries));
    expect(r.code).toBe(code);
    expect(r.message).toMatch(/^the archive/);
  });

  it('rejects a decompression bomb from its declared size before expanding it', async () => {
    const bomb = await archive([{ name: 'zeros', content: Buffer.alloc(4 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(10_000);
    const r = await rejectionOf(bomb, { maxExpandedBytes: 1024 * 1024 });
    expect(r).toEqual({
      code: 'STORAGE_ARCHIVE_EXPANDED_TOO_LARGE',
      message: 'the archive expands to more than 1 MiB',
    });
  });

  it('rejects many small files that together expand past the limit', async () => {
    const entries = Array.from({ length: 20 }, (_, i) => ({
      name: `f${i}`,
      content: Buffer.alloc(100 * 1024),
    }));
    const r = await rejectionOf(await archive(entries), { maxExpandedBytes: 1024 * 1024 });
    expect(r.code).toBe('STORAGE_ARCHIVE_EXPANDED_TOO_LARGE');
  });

  it('rejects more entries than allowed', async () => {
    const entries = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, content: 'x' }));
    const r = await rejectionOf(await archive(entries), { maxEntries: 10 });
    expect(r).toEqual({
      code: 'STORAGE_ARCHIVE_TOO_MANY_ENTRIES',
      message: 'the archive has more than 10 entries',
    });
  });

  it('stops at the compressed size limit', async () => {
    const bytes = await archive([{ name: 'random', content: randomBytes(50_000) }]);
    const result = await inspect(bytes, { maxBytes: 4096 });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.rejection).toEqual({
      code: 'STORAGE_ARCHIVE_TOO_LARGE',
      message: 'the archive is larger than 4 KiB',
    });
    expect(result.sizeBytes).toBeLessThanOrEqual(4096 + 1000);
  });

  it('rejects data that is not gzip, and an empty body', async () => {
    expect((await rejectionOf(await tarOf([{ name: 'f', content: 'x' }]))).code).toBe(
      'STORAGE_ARCHIVE_NOT_GZIP',
    );
    expect((await rejectionOf(Buffer.from('hello, this is plain text'))).code).toBe(
      'STORAGE_ARCHIVE_NOT_GZIP',
    );
    expect((await rejectionOf(Buffer.alloc(0))).code).toBe('STORAGE_ARCHIVE_NOT_GZIP');
  });

  it('rejects truncated gzip', async () => {
    const bytes = await policyArchive();
    const r = await rejectionOf(bytes.subarray(0, bytes.length - 20));
    expect(r).toEqual({ code: 'STORAGE_ARCHIVE_CORRUPT_GZIP', message: 'the gzip data is truncated' });
  });

  it('rejects corrupt gzip data', async () => {
    const bytes = Buffer.from(await policyArchive());
    for (let i = 20; i < 60; i++) bytes[i] = bytes[i]! ^ 0xff;
    expect((await rejectionOf(bytes)).code).toBe('STORAGE_ARCHIVE_CORRUPT_GZIP');
  });

  it('rejects a truncated tar inside intact gzip, and a tar with a broken header', async () => {
    const tarBytes = await tarOf([{ name: 'a.sentinel', content: Buffer.alloc(2000, 1) }]);
    expect((await rejectionOf(gzipOf(tarBytes.subarray(0, 1024)))).code).toBe('STORAGE_ARCHIVE_CORRUPT_TAR');
    const broken = Buffer.from(tarBytes);
    broken[10] = broken[10]! ^ 0xff;
    expect((await rejectionOf(gzipOf(broken))).code).toBe('STORAGE_ARCHIVE_CORRUPT_TAR');
  });

  it('quotes hostile names in messages', async () => {
    const r = await rejectionOf(await archive([{ name: `/${'x'.repeat(300)}`, content: 'x' }]));
    expect(r.message.length).toBeLessThan(300);
    expect(r.message).toContain('…"');
  });
});

describe('archive inspector: every name an extractor may use is checked', () => {
  const ok = rawFile('sentinel.hcl', 'policy "a" {}\n');
  const tarGz = (...members: Buffer[]) => gzipOf(rawTar(...members));

  it('refuses a pax global header that sets path, even to a harmless name, and one that sets linkpath', async () => {
    // tar-stream alone ignores a global path when the entry has no pax header of its own; Python's
    // tarfile and GNU tar apply it to every entry that follows.
    const climbing = await rejectionOf(tarGz(rawPax([['path', '../../x']], 'g'), rawFile('a.txt', 'x')));
    expect(climbing).toEqual({
      code: 'STORAGE_ARCHIVE_GLOBAL_HEADER',
      message:
        'the archive has a pax global header that sets "path" ("../../x"); global headers may not set paths, link targets or sizes',
    });
    const harmless = await rejectionOf(tarGz(rawPax([['path', 'a.txt']], 'g'), rawFile('a.txt', 'x')));
    expect(harmless.code).toBe('STORAGE_ARCHIVE_GLOBAL_HEADER');
    const link = await rejectionOf(
      tarGz(rawPax([['linkpath', '../..']], 'g'), ok, rawHeader({ name: 'l', type: '2', linkname: 'a' })),
    );
    expect(link.code).toBe('STORAGE_ARCHIVE_GLOBAL_HEADER');
    const size = await rejectionOf(tarGz(rawPax([['size', '0']], 'g'), ok));
    expect(size.code).toBe('STORAGE_ARCHIVE_GLOBAL_HEADER');
  });

  it('accepts a global header that only carries a comment (git archive writes one)', async () => {
    const result = await inspect(tarGz(rawPax([['comment', 'a'.repeat(40)]], 'g'), ok));
    expect(result.ok && result.files.map((f) => f.path)).toEqual(['sentinel.hcl']);
  });

  it.each([
    [
      'a per-file pax path',
      [rawPax([['path', '../../x']]), rawFile('x', 'x')],
      'STORAGE_ARCHIVE_PATH_TRAVERSAL',
    ],
    [
      'a per-file pax linkpath',
      [ok, rawPax([['linkpath', '../../etc']]), rawHeader({ name: 'l', type: '2', linkname: 'etc' })],
      'STORAGE_ARCHIVE_LINK_ESCAPE',
    ],
    [
      'a GNU long name',
      [rawGnuLong('L', '../../x'), rawFile('x', 'x', { format: 'gnu' })],
      'STORAGE_ARCHIVE_PATH_TRAVERSAL',
    ],
    [
      'a GNU long link target',
      [ok, rawGnuLong('K', '../../etc'), rawHeader({ name: 'l', type: '2', linkname: 'etc', format: 'gnu' })],
      'STORAGE_ARCHIVE_LINK_ESCAPE',
    ],
    [
      'a ustar name that old readers use beside a safe pax path',
      [rawPax([['path', 'safe']]), rawFile('../../x', 'x')],
      'STORAGE_ARCHIVE_PATH_TRAVERSAL',
    ],
    [
      'the prefix field of a GNU header, which Python prepends and tar-stream ignores',
      [rawFile('x', 'x', { format: 'gnu', prefix: '../..' })],
      'STORAGE_ARCHIVE_PATH_TRAVERSAL',
    ],
    [
      'a GNU long name and a pax path that disagree (readers pick different ones)',
      [rawGnuLong('L', 'evil'), rawPax([['path', 'safe']]), rawFile('x', 'x')],
      'STORAGE_ARCHIVE_AMBIGUOUS_HEADER',
    ],
    [
      'two pax headers for one entry',
      [rawPax([['path', 'a']]), rawPax([['path', 'b']]), rawFile('x', 'x')],
      'STORAGE_ARCHIVE_AMBIGUOUS_HEADER',
    ],
    [
      'a pax header repeating path',
      [
        rawPax([
          ['path', 'a'],
          ['path', 'b'],
        ]),
        rawFile('x', 'x'),
      ],
      'STORAGE_ARCHIVE_AMBIGUOUS_HEADER',
    ],
    [
      'a directory carrying data that hides a header from some readers',
      [rawHeader({ name: 'd/', type: '5', size: 512 }), rawFile('../../evil', 'x').subarray(0, 512), ok],
      'STORAGE_ARCHIVE_AMBIGUOUS_HEADER',
    ],
    [
      'entries after the end-of-archive marker',
      [ok, Buffer.alloc(1024), rawFile('hidden', 'x')],
      'STORAGE_ARCHIVE_AMBIGUOUS_HEADER',
    ],
    [
      'GNU sparse pax records that rename the file',
      [rawPax([['GNU.sparse.name', '../../x']]), rawFile('x', 'x')],
      'STORAGE_ARCHIVE_UNSUPPORTED_ENTRY',
    ],
    ['a sparse typeflag', [rawHeader({ name: 's', type: 'S' }), ok], 'STORAGE_ARCHIVE_UNSUPPORTED_ENTRY'],
    [
      'a malformed pax record',
      [
        Buffer.concat([rawHeader({ name: 'p', type: 'x', size: 12 }), padded(Buffer.from('99 path=x\n'))]),
        ok,
      ],
      'STORAGE_ARCHIVE_CORRUPT_TAR',
    ],
  ] as Array<[string, Buffer[], string]>)('refuses %s', async (_label, members, code) => {
    expect((await rejectionOf(tarGz(...members))).code).toBe(code);
  });

  it('accepts long names and long link targets written the GNU and the pax way', async () => {
    const long = `${'d'.repeat(60)}/${'e'.repeat(60)}/policy.sentinel`;
    const result = await inspect(
      tarGz(
        rawGnuLong('L', long),
        rawFile(long.slice(0, 100), 'main = rule { true }', { format: 'gnu' }),
        rawPax([['path', `${long}.copy`]]),
        rawFile('PaxHeaders/ignored', 'x'),
        rawGnuLong('K', long),
        rawHeader({ name: 'link', type: '2', linkname: long.slice(0, 100), format: 'gnu' }),
      ),
    );
    expect(result.ok && result.files.map((f) => f.path)).toEqual([long, `${long}.copy`]);
  });
});

describe('archive inspector: links are compared case-insensitively', () => {
  it.each([
    [
      'a link that climbs out through a differently-cased symlink',
      [
        { name: 'f', content: 'x' },
        { name: 'dir', type: 'symlink', linkname: '.' },
        { name: 'x', type: 'symlink', linkname: 'DIR/..' },
      ],
    ],
    [
      'a hard link through a differently-cased symlink',
      [
        { name: 'f', content: 'x' },
        { name: 'up', type: 'symlink', linkname: '.' },
        { name: 'h', type: 'link', linkname: 'UP/../etc/passwd' },
      ],
    ],
    [
      'a file written beneath a differently-cased symlink',
      [
        { name: 'Dir', type: 'symlink', linkname: '.' },
        { name: 'dir/f', content: 'x' },
      ],
    ],
    [
      'two symlinks that are one on a case-insensitive file system (an extractor that keeps the first escapes)',
      [
        { name: 'sub/f', content: 'x' },
        { name: 'D', type: 'symlink', linkname: '.' },
        { name: 'd', type: 'symlink', linkname: 'sub' },
        { name: 'x', type: 'symlink', linkname: 'd/..' },
      ],
    ],
  ] as Array<[string, ArchiveEntry[]]>)('refuses %s', async (_label, entries) => {
    expect((await rejectionOf(await archive(entries))).code).toBe('STORAGE_ARCHIVE_LINK_ESCAPE');
  });
});
