import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { createTestDatabase, type TestDatabase, waitFor } from '@policyhub/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './support/api.js';
import { createOrganization } from './support/fixtures.js';

/**
 * A database that hangs instead of failing (docs/adr/0042-deadlines-when-a-dependency-hangs.md):
 * requests are answered 503 or 504 within the call deadline, in-process calls (`npm start`'s
 * default) as over loopback gRPC, and readiness says not ready meanwhile. Postgres is real; the
 * services reach it through a TCP proxy in this test that can stop forwarding (a network stall:
 * bytes are held, connections stay open), and a second connection can hold a lock.
 * Clients wait up to CLIENT_PATIENCE_MS, far longer than any deadline; running out fails the test.
 */
const CLIENT_PATIENCE_MS = 45_000;
const TIMEOUT_STATUSES = [503, 504];

/** A TCP proxy to Postgres whose traffic can be held (both ways, new connections too) and released. */
class StallingProxy {
  private server: Server | undefined;
  private held = false;
  private readonly waiting: Array<() => void> = [];
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => {});
      client.pause();
      const open = () => {
        const upstream = connect(this.target);
        this.sockets.add(upstream);
        upstream.on('close', () => {
          this.sockets.delete(upstream);
          client.destroy();
        });
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        this.forward(client, upstream);
        this.forward(upstream, client);
        client.resume();
      };
      if (this.held) this.waiting.push(open);
      else open();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as { port: number }).port;
  }

  /** Bytes in either direction wait while the proxy holds them (order kept). */
  private forward(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (!this.held) {
        to.write(chunk);
        return;
      }
      from.pause();
      this.waiting.push(() => {
        to.write(chunk);
        from.resume();
      });
    });
  }

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const resume of this.waiting.splice(0)) resume();
  }

  async stop(): Promise<void> {
    this.release();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

async function withPatience(path: string, init: RequestInit & { base: string }) {
  const res = await fetch(`${init.base}${path}`, {
    ...init,
    signal: AbortSignal.timeout(CLIENT_PATIENCE_MS),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers };
}

const codeOf = (text: string): string | undefined => {
  try {
    return (JSON.parse(text) as { errors: Array<{ code: string }> }).errors[0]?.code;
  } catch {
    return undefined;
  }
};

describe.each([
  ['in-process calls (npm start)', true],
  ['calls over loopback gRPC', false],
])('a hung database with %s', (_mode, inProcessCalls) => {
  let db: TestDatabase;
  let proxy: StallingProxy;
  let system: RunningSystem;
  let dataDir: string;
  let admin: ApiClient;
  let org: string;
  let ownerToken: string;

  beforeAll(async () => {
    db = await createTestDatabase('ph_e2e_hung');
    const url = new URL(db.url);
    proxy = new StallingProxy({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.start();
    url.host = `127.0.0.1:${proxy.port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'policyhub-e2e-hung-'));
    system = await startSystem({
      port: 0,
      validateResponses: true,
      dataDir,
      databaseUrl: url.href,
      inProcessCalls,
      logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    });
    admin = new ApiClient(system.baseUrl, system.siteAdminToken);
    const created = await createOrganization({
      admin,
      client: (token) => new ApiClient(system.baseUrl, token),
    });
    org = created.name;
    ownerToken = created.owner.token;
  }, 120_000);
  afterAll(async () => {
    proxy?.release();
    await system?.close();
    await proxy?.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 or 504 while the network to Postgres stalls, is not ready, and recovers after', {
    timeout: 120_000,
  }, async () => {
    const base = `${system.baseUrl}/api/v2`;
    const auth = { authorization: `Bearer ${ownerToken}` };
    expect((await withPatience(`/organizations/${org}`, { base, headers: auth })).status).toBe(200);

    proxy.hold();
    try {
      const answers = await Promise.all([
        withPatience(`/organizations/${org}`, { base, headers: auth }),
        withPatience(`/organizations/${org}/workspaces`, { base, headers: auth }),
        withPatience(`/organizations/${org}/workspaces`, {
          base,
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/vnd.api+json' },
          body: JSON.stringify({ data: { type: 'workspaces', attributes: { name: 'during-the-stall' } } }),
        }),
        // An unknown token: its lookup needs the database too.
        withPatience('/account/details', { base, headers: { authorization: 'Bearer ph.not-cached' } }),
      ]);
      for (const answer of answers) {
        expect(TIMEOUT_STATUSES, answer.text).toContain(answer.status);
        expect([
          'DATABASE_UNAVAILABLE',
          'DEPENDENCY_UNAVAILABLE',
          'GATEWAY_SERVICE_UNAVAILABLE',
          'GATEWAY_TIMEOUT',
        ]).toContain(codeOf(answer.text));
      }
      const ready = await fetch(`${system.opsUrl}/readyz`, {
        signal: AbortSignal.timeout(CLIENT_PATIENCE_MS),
      });
      expect(ready.status).toBe(503);
      expect(await ready.text()).toMatch(/\.database":\{"status":"down"/);
    } finally {
      proxy.release();
    }

    // Back to normal once Postgres answers again; the write made during the stall did not happen.
    await waitFor(
      async () => (await withPatience(`/organizations/${org}`, { base, headers: auth })).status === 200,
      30_000,
      250,
    );
    await waitFor(async () => (await fetch(`${system.opsUrl}/readyz`)).status === 200, 30_000, 250);
    const list = await withPatience(`/organizations/${org}/workspaces`, { base, headers: auth });
    expect(list.text).not.toContain('during-the-stall');
  });

  it('answers 503 while another connection holds a lock the request needs, and carries on after', {
    timeout: 120_000,
  }, async () => {
    const base = `${system.baseUrl}/api/v2`;
    const auth = { authorization: `Bearer ${ownerToken}` };
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE admin_orgs.organizations IN ACCESS EXCLUSIVE MODE');
      const answer = await withPatience(`/organizations/${org}`, { base, headers: auth });
      expect(TIMEOUT_STATUSES, answer.text).toContain(answer.status);
      await locker.query('ROLLBACK');
    } finally {
      await locker.end();
    }
    expect((await withPatience(`/organizations/${org}`, { base, headers: auth })).status).toBe(200);
  });
});
