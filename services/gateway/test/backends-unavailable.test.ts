import * as grpc from '@grpc/grpc-js';
import { createLogger } from '@policyhub/telemetry';
import { freePort, testAuth, waitFor } from '@policyhub/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { type Clients, createClients } from '../src/clients/index.js';
import { backendReadiness } from '../src/readiness.js';

/**
 * The real gateway with real gRPC clients pointed at ports where no service listens (then at a
 * bare gRPC server on one of them): what clients and probes see when backends are down.
 */
let app: FastifyInstance;
let clients: Clients;
let ports: { adminOrgs: number; policySets: number; runs: number; storage: number };
let policySetsServer: grpc.Server | undefined;

beforeAll(async () => {
  ports = {
    adminOrgs: await freePort(),
    policySets: await freePort(),
    runs: await freePort(),
    storage: await freePort(),
  };
  clients = createClients(
    {
      adminOrgs: `127.0.0.1:${ports.adminOrgs}`,
      policySets: `127.0.0.1:${ports.policySets}`,
      runs: `127.0.0.1:${ports.runs}`,
      storage: `127.0.0.1:${ports.storage}`,
    },
    testAuth('gateway').credential,
  );
  app = await buildApp({ clients, logger: createLogger('gateway-test', 'silent') });
});
afterAll(async () => {
  await app?.close();
  clients?.close();
  policySetsServer?.forceShutdown();
});

describe('backends that cannot be reached', () => {
  it('answer 503 with Retry-After and a JSON:API error, authentication included', async () => {
    for (const url of [
      '/api/v2/organizations/acme/policy-sets',
      '/api/v2/policy-sets/polset-0123456789abcdef',
      '/api/v2/runs/run-0123456789abcdef',
    ]) {
      const res = await app.inject({
        method: 'GET',
        url,
        headers: { authorization: 'Bearer ph.some-token' },
      });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['retry-after'], url).toBe('5');
      expect(res.headers['content-type'], url).toContain('application/vnd.api+json');
      expect(res.json(), url).toEqual({
        errors: [
          {
            status: '503',
            code: 'GATEWAY_SERVICE_UNAVAILABLE',
            title: 'service unavailable',
            detail: 'a PolicyHub service is unavailable; try again shortly',
          },
        ],
      });
    }
  });

  it('make the gateway not ready, naming each backend, until it can reach them', async () => {
    const readiness = backendReadiness(clients);
    const down = await readiness();
    expect(down.ready).toBe(false);
    expect(Object.keys(down.checks).sort()).toEqual(['admin-orgs', 'policy-sets', 'runs', 'storage']);
    for (const check of Object.values(down.checks)) {
      expect(check).toMatchObject({
        status: 'down',
        required: true,
        detail: expect.stringContaining('not reachable'),
      });
    }

    // policy-sets comes up (any gRPC server on its port will do for reachability).
    policySetsServer = new grpc.Server();
    await new Promise<void>((resolve, reject) =>
      policySetsServer!.bindAsync(
        `127.0.0.1:${ports.policySets}`,
        grpc.ServerCredentials.createInsecure(),
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    // The channel reconnects on its own backoff (at most 2 s): ask until it has.
    const partly = await waitFor(async () => {
      const report = await readiness();
      return report.checks['policy-sets']?.status === 'up' ? report : undefined;
    }, 15_000);
    expect(partly.checks['policy-sets']).toEqual({ status: 'up', required: true });
    expect(partly.checks['admin-orgs']?.status).toBe('down');
    expect(partly.ready).toBe(false);
  });
});
