import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startAdminOrgs } from '@policyhub/admin-orgs';
import { createTransport, type EventTransport } from '@policyhub/events';
import { buildApp, createClients } from '@policyhub/gateway';
import type { RunningService } from '@policyhub/service-kit';
import { createLogger, type Logger } from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from './postgres.js';

export interface SystemOptions {
  /** Gateway port; 0 picks a free one. */
  port?: number;
  host?: string;
  dataDir?: string;
  /** Use this Postgres instead of starting the embedded one. */
  databaseUrl?: string | undefined;
  kafkaBrokers?: string[] | undefined;
  siteAdminToken?: string | undefined;
  publicUrl?: string | undefined;
  logLevel?: string;
}

export interface RunningSystem {
  baseUrl: string;
  siteAdminToken: string;
  databaseUrl: string;
  services: Record<string, RunningService>;
  app: FastifyInstance;
  transport: EventTransport;
  logger: Logger;
  close(): Promise<void>;
}

const LOOPBACK = '127.0.0.1:0';

/** The site-admin token: SITE_ADMIN_TOKEN, else one generated once and kept in DATA_DIR. */
function siteAdminToken(dataDir: string, configured: string | undefined): string {
  if (configured) return configured;
  const file = join(dataDir, 'site-admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = `ph.${randomBytes(32).toString('base64url')}`;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * Embedded mode: every service in this process, each with its own gRPC server on loopback, the
 * gateway on `port`, Postgres from DATABASE_URL or embedded, events in-process unless Kafka
 * brokers are given. close() stops everything in reverse order, Postgres last.
 */
export async function startSystem(options: SystemOptions = {}): Promise<RunningSystem> {
  const logLevel = options.logLevel ?? 'info';
  const logger = createLogger('policyhub', logLevel);
  const dataDir = resolve(options.dataDir ?? '.data');
  const started: Array<{ close(): Promise<void> }> = [];
  let postgres: EmbeddedPostgresHandle | undefined;
  try {
    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      postgres = await startEmbeddedPostgres(dataDir, logger);
      databaseUrl = postgres.url;
    }
    const token = siteAdminToken(dataDir, options.siteAdminToken);
    const transport = createTransport({ brokers: options.kafkaBrokers, clientId: 'policyhub', logger });
    const shared = { databaseUrl, grpcAddress: LOOPBACK, transport };
    const serviceLogger = (name: string) => createLogger(name, logLevel);

    const adminOrgs = await startAdminOrgs({ ...shared, logger: serviceLogger('admin-orgs'), siteAdminToken: token });
    started.push(adminOrgs);
    const services: Record<string, RunningService> = { 'admin-orgs': adminOrgs };

    const clients = createClients({
      adminOrgs: adminOrgs.address,
      policySets: services['policy-sets']?.address ?? adminOrgs.address,
      runs: services.runs?.address ?? adminOrgs.address,
      storage: services.storage?.address ?? adminOrgs.address,
    });
    const app = await buildApp({
      clients,
      logger: serviceLogger('gateway'),
      publicUrl: options.publicUrl,
      isReady: async () => (await Promise.all(Object.values(services).map((s) => s.isReady()))).every(Boolean),
    });
    const port = options.port ?? 8080;
    const host = options.host ?? '127.0.0.1';
    await app.listen({ port, host });
    const address = app.server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;

    return {
      baseUrl,
      siteAdminToken: token,
      databaseUrl,
      services,
      app,
      transport,
      logger,
      async close() {
        await app.close();
        clients.close();
        for (const s of started.reverse()) await s.close();
        await transport.close();
        await postgres?.stop();
      },
    };
  } catch (err) {
    for (const s of started.reverse()) await s.close().catch(() => {});
    await postgres?.stop().catch(() => {});
    throw err;
  }
}
