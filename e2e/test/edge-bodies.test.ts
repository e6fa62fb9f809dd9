import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, startSystem } from '@policyhub/embedded';
import { createTestDatabase, type TestDatabase } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './support/api.js';
import { policyArchive, putArchive } from './support/archives.js';
import { createOrganization, createPolicySet } from './support/fixtures.js';

/**
 * Slow request bodies at the HTTP edge (docs/security.md, "The edge"): every body has a time
 * limit, with or without a token, and one client address may have only so many bodies arriving
 * at once. Clients here are raw sockets that send headers and part of a body, then nothing more;
 * each waits at most CLIENT_PATIENCE_MS for the server to answer and close (far longer than the
 * limits configured below), and a client that runs out of patience fails the test.
 */
const OPEN_BODIES = 3;
const CLIENT_PATIENCE_MS = 30_000;
let system: RunningSystem;
let db: TestDatabase;
let dataDir: string;
let admin: ApiClient;
let port: number;

beforeAll(async () => {
  db = await createTestDatabase('ph_e2e_bodies');
  dataDir = mkdtempSync(join(tmpdir(), 'policyhub-e2e-bodies-'));
  system = await startSystem({
    port: 0,
    validateResponses: true,
    dataDir,
    databaseUrl: db.url,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    bodyLimits: { bodyTimeoutMs: 3_000, streamedBodyTimeoutMs: 3_000, openBodiesPerAddress: OPEN_BODIES },
  });
  admin = new ApiClient(system.baseUrl, system.siteAdminToken);
  port = Number(new URL(system.baseUrl).port);
});
afterAll(async () => {
  await system?.close();
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface SlowAnswer {
  /** The status line's code, or 0 when the connection closed without an answer. */
  status: number;
  headers: string;
  body: string;
  /** The server closed the connection. */
  closed: boolean;
}

/**
 * Sends a request whose body never finishes: the headers announce `length` bytes, `sent` of them
 * follow. Resolves once the server closes the connection (or the client's patience ends).
 */
function slowBody(options: {
  localAddress?: string;
  method: string;
  path: string;
  token?: string;
  contentType?: string;
  length?: number;
  sent?: string;
}): { socket: Socket; answer: Promise<SlowAnswer> } {
  const length = options.length ?? 1000;
  const socket = connect({ host: '127.0.0.1', port, localAddress: options.localAddress });
  const head = [
    `${options.method} ${options.path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `Content-Type: ${options.contentType ?? 'application/vnd.api+json'}`,
    `Content-Length: ${length}`,
    // A complete request is answered and its connection closed, like an incomplete one.
    'Connection: close',
    ...(options.token ? [`Authorization: Bearer ${options.token}`] : []),
  ].join('\r\n');
  socket.write(`${head}\r\n\r\n${options.sent ?? '{"data":'}`);
  const answer = new Promise<SlowAnswer>((resolve) => {
    let raw = '';
    let closed = false;
    const patience = setTimeout(() => finish(), CLIENT_PATIENCE_MS);
    const finish = () => {
      clearTimeout(patience);
      socket.destroy();
      const [headers = '', body = ''] = raw.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0);
      resolve({ status, headers, body, closed });
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      raw += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
  });
  return { socket, answer };
}

const codeOf = (body: string): string | undefined => {
  try {
    return (JSON.parse(body) as { errors: Array<{ code: string }> }).errors[0]?.code;
  } catch {
    return undefined;
  }
};

describe('a request body that never finishes', () => {
  it('is answered 408 and its connection closed, without a token', async () => {
    const { answer } = slowBody({ method: 'POST', path: '/api/v2/organizations' });
    const res = await answer;
    expect(res.closed).toBe(true);
    expect(res.status).toBe(408);
    expect(codeOf(res.body)).toBe('GATEWAY_REQUEST_TIMEOUT');
    expect(res.headers.toLowerCase()).toContain('content-type: application/vnd.api+json');
  });

  it('is answered 408 with a token too, and nothing is created', async () => {
    const name = `slow-${Math.random().toString(36).slice(2, 8)}`;
    const document = JSON.stringify({
      data: { type: 'organizations', attributes: { name, email: `ops@${name}.example` } },
    });
    const { answer } = slowBody({
      method: 'POST',
      path: '/api/v2/organizations',
      token: system.siteAdminToken,
      length: document.length,
      sent: document.slice(0, -5),
    });
    const res = await answer;
    expect([res.closed, res.status, codeOf(res.body)]).toEqual([true, 408, 'GATEWAY_REQUEST_TIMEOUT']);
    expect((await admin.get(`/organizations/${name}`)).status).toBe(404);
  });

  it('on an upload URL is answered 408, and the URL still takes the archive afterwards', async () => {
    const t = { admin, client: (token: string) => new ApiClient(system.baseUrl, token) };
    const { name: org, owner } = await createOrganization(t, 'slow');
    const set = await createPolicySet(owner.api, org);
    const version = await owner.api.post(`/policy-sets/${set.id}/versions`);
    expect(version.status, version.text).toBe(201);
    const upload = new URL(version.body.data.links.upload as string);
    const { answer } = slowBody({
      method: 'PUT',
      path: upload.pathname,
      contentType: 'application/octet-stream',
      length: 100_000,
      sent: '\u001f\u008b',
    });
    const res = await answer;
    expect(res.closed).toBe(true);
    expect(res.status).toBe(408);
    expect(codeOf(res.body)).toBe('GATEWAY_REQUEST_TIMEOUT');
    // The abandoned attempt stored nothing; a real upload then succeeds.
    let retried = await putArchive(upload.href, await policyArchive());
    for (let i = 0; i < 50 && retried.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 200));
      retried = await putArchive(upload.href, await policyArchive());
    }
    expect(retried.status, retried.text).toBe(200);
  });
});

describe('open request bodies per address', () => {
  it('are limited: one more is refused with 429, other addresses are unaffected', async () => {
    const HOG = '127.0.0.3';
    const held = Array.from({ length: OPEN_BODIES }, () =>
      slowBody({ localAddress: HOG, method: 'POST', path: '/api/v2/organizations' }),
    );
    // Let the server see the held bodies' headers before the next one arrives.
    await new Promise((r) => setTimeout(r, 500));
    const refused = await slowBody({ localAddress: HOG, method: 'POST', path: '/api/v2/organizations' })
      .answer;
    expect(refused.status).toBe(429);
    expect(codeOf(refused.body)).toBe('GATEWAY_TOO_MANY_OPEN_BODIES');
    expect(refused.headers.toLowerCase()).toMatch(/retry-after: \d+/);
    expect(refused.closed).toBe(true);

    // Another address sends a complete body meanwhile and is served.
    const other = await fetch(`${system.baseUrl}/api/v2/organizations`, {
      method: 'POST',
      headers: {
        'content-type': 'application/vnd.api+json',
        authorization: `Bearer ${system.siteAdminToken}`,
      },
      body: JSON.stringify({ data: { type: 'organizations', attributes: {} } }),
    });
    expect(other.status).toBe(422);

    // Once the held bodies have timed out, the address is served again.
    for (const h of held) expect((await h.answer).status).toBe(408);
    const again = await slowBody({
      localAddress: HOG,
      method: 'POST',
      path: '/api/v2/organizations',
      length: 2,
      sent: '{}',
    }).answer;
    expect(again.status).toBe(401);
  });
});
