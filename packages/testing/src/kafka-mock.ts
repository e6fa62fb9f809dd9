import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SOURCE = fileURLToPath(new URL('../kafka-mock/mock-broker.c', import.meta.url));
const INSTALL_HINT =
  'install librdkafka-dev (Debian/Ubuntu: apt-get install -y librdkafka-dev) and a C compiler';
const STARTUP_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export interface MockKafka {
  /** Bootstrap servers, e.g. `['127.0.0.1:39123']`. */
  brokers: string[];
  stop(): Promise<void>;
}

let compiled: Promise<string> | undefined;

/**
 * A real Kafka-protocol broker for tests: librdkafka's mock cluster with one broker, in a child
 * process. It auto-creates topics (4 partitions) and supports produce, fetch, consumer groups
 * and offset commits; it does not support CreateTopics or the idempotent producer.
 */
export async function startMockKafka(): Promise<MockKafka> {
  compiled ??= compileMockBroker().catch((err: unknown) => {
    compiled = undefined;
    throw err;
  });
  const child = spawn(await compiled, [], { stdio: ['pipe', 'pipe', 'pipe'] });
  const brokers = await readBootstrapServers(child);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    brokers,
    stop: async () => {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Builds mock-broker.c once per source version into a cache under the OS temp dir. */
async function compileMockBroker(): Promise<string> {
  const source = readFileSync(SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `policyhub-kafka-mock-${process.getuid?.() ?? 'user'}`);
  const binary = join(dir, `mock-broker-${hash}`);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  // Other test processes may compile at the same moment: build privately, then rename into place.
  const partial = `${binary}.${process.pid}.tmp`;
  try {
    await run('cc', ['-O2', '-o', partial, SOURCE, ...(await rdkafkaFlags())]);
    renameSync(partial, binary);
  } catch (err) {
    rmSync(partial, { force: true });
    throw explainCompileFailure(err);
  }
  return binary;
}

async function rdkafkaFlags(): Promise<string[]> {
  try {
    const { stdout } = await run('pkg-config', ['--cflags', '--libs', 'rdkafka']);
    const flags = stdout.trim().split(/\s+/).filter(Boolean);
    if (flags.length > 0) return flags;
  } catch {
    // No pkg-config or no .pc file: the system default paths usually still work.
  }
  return ['-lrdkafka'];
}

function explainCompileFailure(err: unknown): Error {
  const { code, stderr } = err as { code?: unknown; stderr?: string };
  if (code === 'ENOENT') return new Error(`mock Kafka broker: no C compiler (cc) found; ${INSTALL_HINT}`);
  if (stderr && /librdkafka|rdkafka\.h|-lrdkafka/.test(stderr)) {
    return new Error(`mock Kafka broker: librdkafka headers or library missing; ${INSTALL_HINT}\n${stderr}`);
  }
  return new Error(`mock Kafka broker: compiling ${SOURCE} failed\n${stderr ?? String(err)}`);
}

function readBootstrapServers(child: ChildProcess): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lines = createInterface({ input: child.stdout! });
    const fail = (reason: string) => {
      clearTimeout(timer);
      lines.close();
      child.kill('SIGKILL');
      reject(new Error(`mock Kafka broker ${reason}${stderr ? `: ${stderr.trim()}` : ''}`));
    };
    const timer = setTimeout(
      () => fail(`printed no bootstrap servers within ${STARTUP_TIMEOUT_MS} ms`),
      STARTUP_TIMEOUT_MS,
    );
    child.once('error', (err) => fail(`could not start (${err.message})`));
    child.once('exit', (code, signal) => fail(`exited before it was ready (${signal ?? `code ${code}`})`));
    lines.once('line', (line) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      lines.close();
      resolve(line.trim().split(','));
    });
  });
}
