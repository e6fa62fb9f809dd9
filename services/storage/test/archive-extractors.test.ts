import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { rawFile, rawPax, rawTar } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_UPLOAD_LIMITS } from '../src/domain/upload-limits.js';
import { ArchiveInspector } from '../src/archives/archive-inspector.js';

// Cross-checks against the real extractors of the machine (Debian's GNU tar, python3's tarfile).
// Skipped where they are not installed; the hostile-archive unit tests do not depend on them.
const has = (cmd: string, arg: string) => spawnSync(cmd, [arg], { stdio: 'ignore' }).status === 0;
const hasTar = has('tar', '--version');
const hasPython = has('python3', '--version');

const run = (cmd: string, args: string[], cwd: string) => {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
};

const inspect = async (bytes: Buffer) => {
  const inspector = new ArchiveInspector(DEFAULT_UPLOAD_LIMITS);
  await inspector.write(bytes);
  return inspector.finish();
};

/** Every file and link under `dir`, relative to it. */
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true }).map((d) =>
    relative(dir, join(d.parentPath, d.name)),
  );

let sandbox: string;
beforeAll(() => {
  sandbox = mkdtempSync(join(tmpdir(), 'policyhub-extract-'));
});
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

describe.runIf(hasTar && hasPython)(
  'archives accepted by the inspector stay inside with GNU tar and Python',
  () => {
    const long = `${'modules/'.repeat(8)}${'n'.repeat(60)}.sentinel`;

    /** Packs a small policy tree with long names and inside links, the way each tool writes it. */
    function packedBy(tool: 'gnu' | 'posix' | 'python'): Buffer {
      const src = mkdtempSync(join(sandbox, 'src-'));
      mkdirSync(join(src, long, '..'), { recursive: true });
      writeFileSync(join(src, 'sentinel.hcl'), 'policy "a" {\n  source = "./a.sentinel"\n}\n');
      writeFileSync(join(src, 'a.sentinel'), 'main = rule { true }\n');
      writeFileSync(join(src, long), 'x = 1\n');
      run('ln', ['-s', long, 'long-link'], src);
      run('ln', ['-s', 'modules', 'm'], src);
      const out = join(sandbox, `${tool}.tar.gz`);
      if (tool === 'python') {
        run(
          'python3',
          [
            '-c',
            'import sys, tarfile\n' +
              't = tarfile.open(sys.argv[1], "w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": "set v1"})\n' +
              't.add(".", arcname=".")\nt.close()',
            out,
          ],
          src,
        );
      } else {
        run('tar', [`--format=${tool}`, '-czf', out, '.'], src);
      }
      return readFileSync(out);
    }

    it.each(['gnu', 'posix', 'python'] as const)('an archive written by %s', async (tool) => {
      const bytes = packedBy(tool);
      const result = await inspect(bytes);
      expect(result.ok, JSON.stringify(result)).toBe(true);
      expect(result.ok && result.files.map((f) => f.path)).toEqual(
        expect.arrayContaining(['sentinel.hcl', 'a.sentinel', long]),
      );

      for (const extractor of ['tar', 'python'] as const) {
        const root = mkdtempSync(join(sandbox, `${extractor}-`));
        const target = join(root, 'a', 'b', 'out');
        mkdirSync(target, { recursive: true });
        writeFileSync(join(sandbox, 'archive.tar.gz'), bytes);
        if (extractor === 'tar') run('tar', ['-xzf', join(sandbox, 'archive.tar.gz'), '-C', target], root);
        else
          run(
            'python3',
            [
              '-c',
              'import sys, tarfile\ntarfile.open(sys.argv[1]).extractall(sys.argv[2])',
              join(sandbox, 'archive.tar.gz'),
              target,
            ],
            root,
          );
        const written = walk(root);
        expect(written.filter((p) => !p.startsWith('a/b/out') && p !== 'a' && p !== 'a/b')).toEqual([]);
        expect(written).toContain(join('a/b/out', long));
      }
    });
  },
);

describe.runIf(hasPython)('the hostile archives are read differently by Python', () => {
  it('Python takes the name of a pax global header, which tar-stream alone ignores', async () => {
    const bytes = gzipSync(rawTar(rawPax([['path', '../../escaped']], 'g'), rawFile('a.txt', 'hello\n')));
    writeFileSync(join(sandbox, 'global.tar.gz'), bytes);
    const names = run(
      'python3',
      [
        '-c',
        'import sys, tarfile\nprint([m.name for m in tarfile.open(sys.argv[1])])',
        join(sandbox, 'global.tar.gz'),
      ],
      sandbox,
    );
    expect(names.trim()).toBe("['../../escaped']");
    const result = await inspect(bytes);
    expect(!result.ok && result.rejection.code).toBe('STORAGE_ARCHIVE_GLOBAL_HEADER');
  });
});
