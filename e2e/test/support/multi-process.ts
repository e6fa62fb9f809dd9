import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Db } from '@policyhub/db';
import { createTestDatabase, type MockKafka, startMockKafka } from '@policyhub/testing';
import { afterEach } from 'vitest';
import { ApiClient } from './api.js';
import { reservePorts } from './port-reservations.js';

/**
 * Distributed mode on one machine: every service is its own OS process, started from its
 * src/main.ts exactly as a container starts it, configured only through its environment, talking
 * gRPC over loopback and events over Kafka (librdkafka's mock broker). A single service can be
 * SIGKILLed, SIGTERMed and started again on the same ports, which is what the resilience tests need.
 */

export type ServiceName = 'admin-orgs' | 'storage' | 'policy-sets' | 'runs' | 'gateway';
export const SERVICE_NAMES: ServiceName[] = ['admin-orgs', 'storage', 'policy-sets', 'runs', 'gateway'];

/** Postgres schema of each stateful service (for assertions on its tables). */
const SCHEMAS = {
  'admin-orgs': 'admin_orgs',
  storage: 'storage',
  'policy-sets': 'policy_sets',
  runs: 'runs',
} as const;
export type StatefulService = keyof typeof SCHEMAS;

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Compiling TypeScript on start, five processes at once on two busy cores: be patient. */
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;
const OUTPUT_LINES_KEPT = 200;
/** Only these variables of the test process reach a service: nothing else may configure it. */
const INHERITED_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  readonly name: ServiceName;
  /** host:port of its gRPC server (the gateway has none). */
  readonly grpcAddress: string;
  /** Where /healthz, /readyz and /metrics answer: the ops listener (the gateway's too, not its API port). */
  readonly opsUrl: string;
  readonly pid: number | undefined;
  readonly isRunning: boolean;
  /** Starts the process (again) on the same ports and waits until /readyz answers 200. */
  start(extraEnv?: Record<string, string>): Promise<void>;
  /** SIGKILL: no shutdown code runs, nothing is flushed. Resolves once the process is gone. */
  kill(): Promise<ExitStatus>;
  /** Sends a signal (SIGTERM by default); `exited` resolves when the process is gone. */
  signal(signal?: NodeJS.Signals): { exited: Promise<ExitStatus> };
  /** The last lines it printed (stdout and stderr), for failure messages. */
  output(): string;
  /** Its Prometheus metrics text. */
  metrics(): Promise<string>;
}

export interface MultiProcessSystem {
  baseUrl: string;
  siteAdminToken: string;
  databaseUrl: string;
  kafka: MockKafka;
  /** Client authenticated as the bootstrap site admin. */
  admin: ApiClient;
  /** Client without a token. */
  anonymous: ApiClient;
  client(token: string): ApiClient;
  services: Record<ServiceName, ServiceProcess>;
  /** A pool on one service's own schema, for assertions about its tables. */
  db(service: StatefulService): Db;
  /** Where storage keeps objects on disk (its DATA_DIR). */
  dataDir: string;
  /** The last lines every service printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface MultiProcessOptions {
  /** Use this (empty) database instead of a fresh one on the test server; it is not dropped. */
  databaseUrl?: string;
  /** Extra environment per service, e.g. a test hook or small upload limits. */
  env?: Partial<Record<ServiceName, Record<string, string>>>;
}

/** Children of this test process, killed if it exits without stopping them. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Starts the five services as separate processes on a fresh database and a fresh mock Kafka
 * broker, and waits until each one is ready. stop() terminates them gracefully and cleans up.
 */
export async function startMultiProcessSystem(
  options: MultiProcessOptions = {},
): Promise<MultiProcessSystem> {
  const cleanup: Array<() => Promise<void>> = [];
  const processes: ServiceProcess[] = [];
  const undo = async () => {
    await Promise.allSettled(processes.map((p) => stopProcess(p)));
    for (const step of cleanup.reverse()) await step().catch(() => {});
  };
  try {
    const database = options.databaseUrl
      ? { url: options.databaseUrl, drop: async () => {} }
      : await createTestDatabase('ph_multi');
    cleanup.push(() => database.drop());
    const kafka = await startMockKafka();
    cleanup.push(() => kafka.stop());
    const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-multi-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));

    const siteAdminToken = `ph.test-${randomBytes(24).toString('base64url')}`;
    const workerTokens = {
      evaluator: `ph.evaluator-${randomBytes(24).toString('base64url')}`,
      executor: `ph.executor-${randomBytes(24).toString('base64url')}`,
    };
    const reservation = await reservePorts(SERVICE_NAMES.length * 2);
    cleanup.push(async () => reservation.release());
    const ports = Object.fromEntries(
      SERVICE_NAMES.map((name, i) => [
        name,
        { grpc: reservation.ports[2 * i]!, ops: reservation.ports[2 * i + 1]! },
      ]),
    ) as Record<ServiceName, { grpc: number; ops: number }>;
    const grpcAddress = (name: ServiceName) => `127.0.0.1:${ports[name].grpc}`;
    const common = {
      // Every process of one deployment shares the internal signing key (ADR 0009).
      INTERNAL_SIGNING_KEYS: `test:${randomBytes(32).toString('base64url')}`,
      DATABASE_URL: database.url,
      KAFKA_BROKERS: kafka.brokers.join(','),
      // librdkafka's mock cluster has no idempotent producer (on by default everywhere else).
      KAFKA_IDEMPOTENT: 'false',
      // A restarted service waits about this long to rejoin its groups (the default is 30 s).
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      GRPC_HOST: '127.0.0.1',
      OPS_HOST: '127.0.0.1',
      ADMIN_ORGS_ADDR: grpcAddress('admin-orgs'),
      POLICY_SETS_ADDR: grpcAddress('policy-sets'),
      RUNS_ADDR: grpcAddress('runs'),
      STORAGE_ADDR: grpcAddress('storage'),
    };
    const own: Record<ServiceName, Record<string, string>> = {
      'admin-orgs': { SITE_ADMIN_TOKEN: siteAdminToken },
      storage: { DATA_DIR: dataDir, UPLOAD_TMP_DIR: join(dataDir, 'staging') },
      'policy-sets': {},
      runs: { EVALUATOR_TOKENS: workerTokens.evaluator, EXECUTOR_TOKENS: workerTokens.executor },
      // Rate limiting is tested elsewhere; here it would only throttle the load the tests drive.
      // The gateway's API listens on the port reserved for gRPC (it has none), ops on its own.
      gateway: {
        PORT: String(ports.gateway.grpc),
        HOST: '127.0.0.1',
        RATE_LIMIT_PER_SECOND: '0',
        AUTH_FAILURE_LIMIT: '0',
        VALIDATE_RESPONSES: 'true',
      },
    };
    for (const name of SERVICE_NAMES) {
      const isGateway = name === 'gateway';
      processes.push(
        new ManagedService(name, isGateway ? '' : grpcAddress(name), `http://127.0.0.1:${ports[name].ops}`, {
          ...common,
          ...(isGateway ? {} : { GRPC_PORT: String(ports[name].grpc) }),
          OPS_PORT: String(ports[name].ops),
          ...own[name],
          ...options.env?.[name],
        }),
      );
    }
    await Promise.all(processes.map((p) => p.start()));
    const died = processes.filter((p) => !p.isRunning);
    if (died.length > 0) {
      throw new Error(
        `exited right after starting: ${died.map((p) => `${p.name}\n${p.output()}`).join('\n')}`,
      );
    }

    const services = Object.fromEntries(processes.map((p) => [p.name, p])) as Record<
      ServiceName,
      ServiceProcess
    >;
    const pools = new Map<StatefulService, Db>();
    cleanup.push(async () => {
      await Promise.all([...pools.values()].map((db) => db.close()));
    });
    const baseUrl = `http://127.0.0.1:${ports.gateway.grpc}`;
    const client = (token: string) => new ApiClient(baseUrl, token);
    return {
      baseUrl,
      siteAdminToken,
      databaseUrl: database.url,
      kafka,
      admin: client(siteAdminToken),
      anonymous: new ApiClient(baseUrl, undefined),
      client,
      services,
      dataDir,
      output: () => processes.map((p) => p.output()).join('\n'),
      db(service) {
        let db = pools.get(service);
        if (!db) {
          db = new Db({
            url: database.url,
            schema: SCHEMAS[service],
            max: 2,
            applicationName: 'e2e-assertions',
          });
          pools.set(service, db);
        }
        return db;
      },
      stop: undo,
    };
  } catch (err) {
    await undo();
    throw err;
  }
}

/** SIGTERM, then SIGKILL if it has not exited in time. */
async function stopProcess(service: ServiceProcess): Promise<void> {
  if (!service.isRunning) return;
  const { exited } = service.signal('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS);
  });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome === 'late') await service.kill();
}

class ManagedService implements ServiceProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<ExitStatus> = Promise.resolve({ code: null, signal: null });
  private readonly lines: string[] = [];

  constructor(
    readonly name: ServiceName,
    readonly grpcAddress: string,
    readonly opsUrl: string,
    private readonly env: Record<string, string>,
  ) {}

  get pid() {
    return this.child?.pid;
  }

  get isRunning() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(extraEnv: Record<string, string> = {}): Promise<void> {
    if (this.isRunning) throw new Error(`${this.name} is already running (pid ${this.pid})`);
    const inherited = Object.fromEntries(
      INHERITED_ENV.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])),
    );
    const child = spawn(
      process.execPath,
      ['--conditions=@policyhub/source', '--import', 'tsx', `services/${this.name}/src/main.ts`],
      { cwd: REPO_ROOT, env: { ...inherited, ...this.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    live.add(child);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        live.delete(child);
        resolve({ code, signal });
      });
    });
    // Always drained: a child blocked on a full pipe would look like a hung service.
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => this.record(chunk));
    }
    await this.waitUntilReady(child);
  }

  private record(chunk: string): void {
    for (const line of chunk.split('\n')) if (line.trim()) this.lines.push(line);
    if (this.lines.length > OUTPUT_LINES_KEPT) this.lines.splice(0, this.lines.length - OUTPUT_LINES_KEPT);
  }

  /** Polls /readyz; fails at once if the process exits first (bad config, crash) with its output. */
  private async waitUntilReady(child: ChildProcess): Promise<void> {
    let exit: ExitStatus | undefined;
    void this.exited.then((status) => {
      exit = status;
    });
    const until = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < until && !exit) {
      const ready = await fetch(`${this.opsUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ready && this.child === child) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (this.isRunning) child.kill('SIGKILL');
    const why = exit
      ? `it exited (${exit.signal ?? `code ${exit.code}`})`
      : `not ready within ${READY_TIMEOUT_MS} ms`;
    throw new Error(`${this.name} did not start: ${why}\n${this.output()}`);
  }

  kill(): Promise<ExitStatus> {
    return this.signal('SIGKILL').exited;
  }

  signal(signal: NodeJS.Signals = 'SIGTERM'): { exited: Promise<ExitStatus> } {
    if (this.isRunning) this.child!.kill(signal);
    return { exited: this.exited };
  }

  output(): string {
    return this.lines.map((l) => `  [${this.name}] ${l}`).join('\n');
  }

  async metrics(): Promise<string> {
    const res = await fetch(`${this.opsUrl}/metrics`);
    if (!res.ok) throw new Error(`${this.name} /metrics answered ${res.status}`);
    return res.text();
  }
}

/** Prints the services' recent output after a failed test of this file (they run out of sight). */
export function reportServiceOutputOnFailure(system: () => MultiProcessSystem | undefined): void {
  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(system()?.output());
  });
}

/**
 * The value of one Prometheus sample (0 when absent), e.g.
 * `metricValue(text, 'policyhub_events_consumed_total', { outcome: 'duplicate' })`; samples whose
 * labels include all of `labels` are summed.
 */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const sampleLabels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    if (Object.entries(labels).every(([k, v]) => sampleLabels[k] === v)) sum += Number(match[3]);
  }
  return sum;
}
