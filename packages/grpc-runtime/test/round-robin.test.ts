import { contracts } from '@policyhub/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, isBalancedTarget } from '../src/client.js';
import { generateSigningKeys, InternalAuth } from '../src/internal-auth.js';
import { principalOf } from '@policyhub/permissions';
import { bindServer, createGrpcServer, implement, shutdownServer } from '../src/server.js';

/**
 * Per-call balancing: three real gRPC servers ("replicas") behind one target that resolves to all
 * three addresses, as a headless Service's DNS name does. The `ipv4:` target stands in for the
 * DNS answer (grpc-js resolves both the same way into an address list for the balancer).
 */
const v1 = contracts().policyhub.adminorgs.v1;
const keys = generateSigningKeys();
const gateway = new InternalAuth({ keys, service: 'gateway' });
const replicas: Array<{ server: ReturnType<typeof createGrpcServer>; address: string }> = [];
const alice = principalOf({ userId: 'user-alice', username: 'alice', isSiteAdmin: false }, []);

beforeAll(async () => {
  for (const name of ['replica-a', 'replica-b', 'replica-c']) {
    const server = createGrpcServer();
    const auth = new InternalAuth({ keys, service: 'admin-orgs' });
    const handlers = { GetAccountDetails: async () => ({ user: { id: name } }) };
    server.addService(v1.Identity.service, implement(handlers as never, { logger: console, auth }));
    replicas.push({ server, address: await bindServer(server, '127.0.0.1:0') });
  }
});

afterAll(async () => {
  for (const r of replicas) await shutdownServer(r.server);
});

describe('a client of a name with several addresses', () => {
  it('spreads consecutive calls over every replica, not one connection', async () => {
    const target = `ipv4:${replicas.map((r) => r.address).join(',')}`;
    const identity = createClient(v1.Identity, target, gateway.credential);
    try {
      const answered: string[] = [];
      for (let i = 0; i < 30; i += 1) {
        answered.push((await identity.GetAccountDetails({}, { principal: alice })).user!.id);
      }
      const counts = new Map<string, number>();
      for (const id of answered) counts.set(id, (counts.get(id) ?? 0) + 1);
      // Calls rotate over the connected replicas (the first ones may find only some connected yet);
      // with one connection per channel (pick_first) a single replica would take all 30.
      expect([...counts.keys()].sort()).toEqual(['replica-a', 'replica-b', 'replica-c']);
      expect(Math.max(...counts.values())).toBeLessThanOrEqual(15);
    } finally {
      identity.close();
    }
  });

  it('balances targets written with a resolver scheme; a plain host:port stays one connection', () => {
    expect(isBalancedTarget('dns:///admin-orgs:50051')).toBe(true);
    expect(isBalancedTarget('ipv4:127.0.0.1:1,127.0.0.1:2')).toBe(true);
    expect(isBalancedTarget('admin-orgs:50051')).toBe(false);
    expect(isBalancedTarget('127.0.0.1:50051')).toBe(false);
  });
});
