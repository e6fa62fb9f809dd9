import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { notFound } from '@policyhub/errors';
import { registry } from '@policyhub/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/client.js';
import { generateSigningKeys, InternalAuth } from '../src/internal-auth.js';
import { bindServer, createGrpcServer, implement, shutdownServer, streaming } from '../src/server.js';

const silent = { error: () => {} };
const auth = new InternalAuth({ keys: generateSigningKeys(), service: 'test' });

/** `policyhub_rpc_duration_seconds_count` for one service/method/code, 0 when never observed. */
async function callCount(service: string, method: string, code: string): Promise<number> {
  const metric = await registry.getSingleMetric('policyhub_rpc_duration_seconds')!.get();
  const sample = (metric.values as Array<(typeof metric.values)[number] & { metricName?: string }>).find(
    (v) =>
      v.metricName === 'policyhub_rpc_duration_seconds_count' &&
      v.labels.service === service &&
      v.labels.method === method &&
      v.labels.code === code,
  );
  return sample?.value ?? 0;
}

describe('RPC metrics recorded by implement()', () => {
  const v1 = () => contracts().policyhub;
  let server: grpc.Server;
  let address: string;

  beforeAll(async () => {
    server = createGrpcServer();
    server.addService(
      v1().adminorgs.v1.Identity.service,
      implement(
        {
          Authenticate: async (request: { token: string }) => {
            if (request.token !== 'good') throw notFound();
            return { principal: { userId: 'user-1', username: 'one', isSiteAdmin: false, memberships: [] } };
          },
        } as never,
        { logger: silent, auth },
      ),
    );
    server.addService(
      v1().storage.v1.Storage.service,
      implement(
        {
          PutObject: streaming(
            (call: grpc.ServerReadableStream<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
              call.on('data', () => {});
              call.on('end', () => callback(null, { key: 'k', size: 0 }));
            },
          ),
        } as never,
        { logger: silent, auth },
      ),
    );
    address = await bindServer(server, '127.0.0.1:0');
  });
  afterAll(async () => {
    await shutdownServer(server);
  });

  it('counts unary calls by gRPC service, method and status code', async () => {
    const client = createClient(v1().adminorgs.v1.Identity, address, auth.credential);
    try {
      const before = {
        ok: await callCount('policyhub.adminorgs.v1.Identity', 'Authenticate', 'OK'),
        notFound: await callCount('policyhub.adminorgs.v1.Identity', 'Authenticate', 'NOT_FOUND'),
      };
      await client.Authenticate({ token: 'good' });
      await client.Authenticate({ token: 'good' });
      await expect(client.Authenticate({ token: 'bad' })).rejects.toMatchObject({
        code: grpc.status.NOT_FOUND,
      });

      expect(await callCount('policyhub.adminorgs.v1.Identity', 'Authenticate', 'OK')).toBe(before.ok + 2);
      expect(await callCount('policyhub.adminorgs.v1.Identity', 'Authenticate', 'NOT_FOUND')).toBe(
        before.notFound + 1,
      );
    } finally {
      client.close();
    }
  });

  it('times client-streaming calls when they answer', async () => {
    const client = createClient(v1().storage.v1.Storage, address, auth.credential);
    try {
      const before = await callCount('policyhub.storage.v1.Storage', 'PutObject', 'OK');
      await new Promise<void>((resolve, reject) => {
        const call = (
          client.raw as unknown as grpc.Client & {
            PutObject(
              metadata: grpc.Metadata,
              cb: (err: grpc.ServiceError | null) => void,
            ): grpc.ClientWritableStream<unknown>;
          }
        ).PutObject(client.metadata(), (err) => (err ? reject(err) : resolve()));
        call.write({ header: { key: 'k', contentType: 'application/gzip' } });
        call.end();
      });
      expect(await callCount('policyhub.storage.v1.Storage', 'PutObject', 'OK')).toBe(before + 1);
    } finally {
      client.close();
    }
  });

  it('shows the RPC histogram in the Prometheus exposition', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(
      /policyhub_rpc_duration_seconds_count\{service="policyhub\.adminorgs\.v1\.Identity",method="Authenticate",code="OK"\} \d+/,
    );
  });
});
