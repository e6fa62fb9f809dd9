#!/usr/bin/env node
// `npm run start:distributed`: the distributed mode on this machine. Each service and the gateway
// run as their own process from their built output (`services/<name>/dist/main.js`, as the images
// run them), against the Postgres in DATABASE_URL and the Kafka in KAFKA_BROKERS. Builds first
// (turbo: a cache hit when nothing changed), checks the ports, starts the six processes (four
// services, the evaluator and the gateway), waits until each is ready, prints the base URL and where
// the tokens are, and on Ctrl-C or SIGTERM stops them all (SIGTERM each, SIGKILL after 20 s). If one
// of them exits, the others are stopped.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = (name) => (process.env[name] === '' ? undefined : process.env[name]);

// --- configuration: only what this script adds; each process validates its own variables.
const missing = ['DATABASE_URL', 'KAFKA_BROKERS'].filter((name) => !env(name));
if (missing.length > 0) {
  console.error(
    `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: the distributed mode needs a Postgres (DATABASE_URL) and Kafka (KAFKA_BROKERS); \`npm start\` needs neither`,
  );
  process.exit(2);
}

/** gRPC and ops ports: the defaults the gateway and the evaluator expect (docs/running.md, distributed mode). */
const SERVICES = [
  { name: 'admin-orgs', grpc: 50051, ops: 9464, variable: 'ADMIN_ORGS_ADDR' },
  { name: 'policy-sets', grpc: 50052, ops: 9465, variable: 'POLICY_SETS_ADDR' },
  { name: 'runs', grpc: 50053, ops: 9466, variable: 'RUNS_ADDR' },
  { name: 'storage', grpc: 50054, ops: 9467, variable: 'STORAGE_ADDR' },
];
const GATEWAY_OPS_PORT = 9468;
/** The evaluator serves no gRPC; its ops port is for the readiness wait. */
const EVALUATOR_OPS_PORT = 9469;
const port = Number(env('PORT') ?? 8080);
const host = env('HOST') ?? '127.0.0.1';
const dataDir = resolve(ROOT, env('DATA_DIR') ?? '.data/distributed');
const addresses = Object.fromEntries(SERVICES.map((s) => [s.variable, `127.0.0.1:${s.grpc}`]));

function bindError(bindHost, bindPort) {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', (err) => done(err));
    server.listen({ host: bindHost, port: bindPort, exclusive: true }, () =>
      server.close(() => done(undefined)),
    );
  });
}

const listeners = [
  { what: 'PORT', host, port, hint: 'set PORT to a free port' },
  { what: 'gateway ops port', host: '127.0.0.1', port: GATEWAY_OPS_PORT, hint: 'stop what uses it' },
  { what: 'evaluator ops port', host: '127.0.0.1', port: EVALUATOR_OPS_PORT, hint: 'stop what uses it' },
  ...SERVICES.flatMap((s) => [
    {
      what: `${s.name} gRPC port`,
      host: '127.0.0.1',
      port: s.grpc,
      hint: 'stop what uses it (another PolicyHub?)',
    },
    { what: `${s.name} ops port`, host: '127.0.0.1', port: s.ops, hint: 'stop what uses it' },
  ]),
];
let busy = false;
for (const l of listeners) {
  const err = await bindError(l.host, l.port);
  if (err) {
    busy = true;
    console.error(
      err.code === 'EADDRINUSE'
        ? `${l.what} ${l.port} is in use; ${l.hint}`
        : `${l.what} ${l.port} cannot be listened on (${err.code ?? err.message})`,
    );
  }
}
if (busy) process.exit(2);

// --- build (the services run from dist/, their workspace packages too)
console.log('building the services and the gateway (turbo; cached when nothing changed) ...');
const build = spawnSync(
  'npx',
  [
    'turbo',
    'run',
    'build',
    '--output-logs=errors-only',
    ...['gateway', 'evaluator', ...SERVICES.map((s) => s.name)].map((n) => `--filter=@policyhub/${n}`),
  ],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } },
);
if (build.status !== 0) {
  console.error('the build failed (see above); nothing was started');
  process.exit(1);
}

// --- secrets. The site-admin token and the evaluator/executor tokens: from the environment, else
// generated once into DATA_DIR (0600), as `npm start` does. The key that signs internal calls:
// INTERNAL_SIGNING_KEYS, else a fresh one per start, known only to the processes started here.
function persistentSecret(name, configured) {
  if (configured) return configured;
  const file = join(dataDir, name);
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(file))
    writeFileSync(file, `ph.${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}
const siteAdminToken = persistentSecret('site-admin-token', env('SITE_ADMIN_TOKEN'));
const evaluatorTokens = env('EVALUATOR_TOKENS') ?? persistentSecret('evaluator-token');
// The evaluator started here presents the first of runs' evaluator tokens.
const evaluatorToken = evaluatorTokens.split(',')[0].trim();
const executorTokens = env('EXECUTOR_TOKENS') ?? persistentSecret('executor-token');
const signingKeys = env('INTERNAL_SIGNING_KEYS') ?? `local:${randomBytes(32).toString('base64url')}`;
// Sealed parameters must open after a restart, so this key is kept in DATA_DIR (docs/security.md).
const parameterKeyFile = join(dataDir, 'policy-set-parameter-key');
if (!env('POLICY_SET_PARAMETER_KEYS') && !existsSync(parameterKeyFile))
  writeFileSync(parameterKeyFile, `local:${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
const parameterKeys = env('POLICY_SET_PARAMETER_KEYS') ?? readFileSync(parameterKeyFile, 'utf8').trim();

// --- processes
const common = {
  ...process.env,
  ...addresses,
  INTERNAL_SIGNING_KEYS: signingKeys,
  POLICY_SET_PARAMETER_KEYS: parameterKeys,
  GRPC_HOST: '127.0.0.1',
  OPS_HOST: '127.0.0.1',
  DATA_DIR: dataDir,
};
const processes = [
  ...SERVICES.map((s) => ({
    name: s.name,
    ready: `http://127.0.0.1:${s.ops}/readyz`,
    env: {
      ...common,
      GRPC_PORT: String(s.grpc),
      OPS_PORT: String(s.ops),
      ...(s.name === 'admin-orgs' ? { SITE_ADMIN_TOKEN: siteAdminToken } : {}),
      ...(s.name === 'runs' ? { EVALUATOR_TOKENS: evaluatorTokens, EXECUTOR_TOKENS: executorTokens } : {}),
    },
  })),
  {
    // The evaluator talks to runs only (RUNS_ADDR), with its own token, never the signing key.
    name: 'evaluator',
    ready: `http://127.0.0.1:${EVALUATOR_OPS_PORT}/readyz`,
    env: {
      ...Object.fromEntries(Object.entries(common).filter(([k]) => k !== 'INTERNAL_SIGNING_KEYS')),
      EVALUATOR_TOKEN: evaluatorToken,
      OPS_PORT: String(EVALUATOR_OPS_PORT),
    },
  },
  {
    name: 'gateway',
    ready: `http://127.0.0.1:${GATEWAY_OPS_PORT}/readyz`,
    env: { ...common, PORT: String(port), HOST: host, OPS_PORT: String(GATEWAY_OPS_PORT) },
  },
];
const width = Math.max(...processes.map((p) => p.name.length));

let stopping = false;
const launch = (p) => {
  // Own process groups: a terminal's Ctrl-C reaches this script only, which stops each process once.
  p.child = spawn(
    process.execPath,
    ['--import', '@policyhub/telemetry/register', `services/${p.name}/dist/main.js`],
    { cwd: ROOT, env: p.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  p.lines = [];
  const prefix = `${p.name.padEnd(width)} | `;
  for (const stream of [p.child.stdout, p.child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const text = rest + chunk.toString();
      const lines = text.split('\n');
      rest = lines.pop();
      for (const line of lines) {
        process.stdout.write(`${prefix}${line}\n`);
        p.lines.push(line);
        if (p.lines.length > 20) p.lines.shift();
      }
    });
  }
  p.exited = new Promise((done) => p.child.once('exit', (code, signal) => done({ code, signal })));
  p.exited.then(({ code, signal }) => {
    if (stopping) return;
    console.error(`${p.name} exited (${signal ?? `status ${code}`}); stopping the others`);
    void stopAll(1);
  });
};
// The evaluator starts in the readiness loop below, once runs answers, so that its first claims do
// not fail while runs is still starting.
for (const p of processes) if (p.name !== 'evaluator') launch(p);
process.on('exit', () => {
  for (const p of processes)
    if (p.child && p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
});

async function stopAll(exitCode) {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    processes.map(async (p) => {
      if (!p.child || p.child.exitCode !== null || p.child.signalCode !== null) return;
      p.child.kill('SIGTERM');
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 20_000);
      await p.exited;
      clearTimeout(timer);
    }),
  );
  process.exit(exitCode);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

// --- readiness
const deadline = Date.now() + 120_000;
for (const p of processes) {
  if (!p.child) launch(p);
  for (;;) {
    if (stopping) await new Promise(() => {}); // stopAll exits the process
    const ok = await fetch(p.ready, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      console.error(`${p.name} did not become ready within 120 s (${p.ready}); stopping everything`);
      await stopAll(1);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const baseUrl = env('PUBLIC_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
process.stdout.write(
  `\nPolicyHub (distributed mode: ${processes.length} processes) is running\n` +
    `  base URL:          ${baseUrl}/api/v2\n` +
    `  site-admin token:  ${siteAdminToken}\n` +
    `  runs gRPC (for evaluators, RUNS_ADDR): ${addresses.RUNS_ADDR}\n` +
    `  evaluator token (EVALUATOR_TOKEN):    ${env('EVALUATOR_TOKENS') ? 'one of EVALUATOR_TOKENS' : `in ${join(dataDir, 'evaluator-token')}`}\n` +
    `  objects and generated tokens in ${dataDir}; Ctrl-C stops every process\n\n`,
);
