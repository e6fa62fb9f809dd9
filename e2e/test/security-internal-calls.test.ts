import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import {
  type ClientCredential,
  createClient,
  generateSigningKeys,
  InternalAuth,
  readServiceError,
  workerCredential,
} from '@policyhub/grpc-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Every gRPC port refuses callers without proof (ADR 0009): a process that can reach a port but
 * holds neither the deployment's signing key nor a worker token gets UNAUTHENTICATED from every
 * method of every service, streaming object reads included; an evaluator's token reaches the
 * evaluator API and nothing else.
 */

let t: TestSystem;
beforeAll(async () => {
  t = await startTestSystem();
});
afterAll(async () => {
  await t?.stop();
});

type ServiceCtor = grpc.ServiceClientConstructor;
const PACKAGES = {
  adminorgs: 'admin-orgs',
  policysets: 'policy-sets',
  runs: 'runs',
  storage: 'storage',
} as const;

/** Every gRPC service of the contracts with the address of the process serving it. */
function everyService(): Array<{ name: string; ctor: ServiceCtor; address: string }> {
  const root = contracts().policyhub as unknown as Record<string, { v1: Record<string, unknown> }>;
  const out: Array<{ name: string; ctor: ServiceCtor; address: string }> = [];
  for (const [pkg, service] of Object.entries(PACKAGES)) {
    for (const [name, value] of Object.entries(root[pkg]!.v1)) {
      if (typeof value === 'function' && 'service' in value) {
        out.push({
          name: `${pkg}.${name}`,
          ctor: value as ServiceCtor,
          address: t.system.services[service]!.address,
        });
      }
    }
  }
  return out;
}

/** Calls `method` with an empty request and the credential; resolves to the gRPC status code. */
function callStatus(ctor: ServiceCtor, address: string, method: string, credential: ClientCredential) {
  const client = createClient(ctor as never, address, credential) as unknown as {
    raw: Record<
      string,
      (...args: unknown[]) => grpc.ClientReadableStream<unknown> & grpc.ClientWritableStream<unknown>
    >;
    metadata(): grpc.Metadata;
    close(): void;
  };
  const def = ctor.service[method]!;
  const deadline = { deadline: Date.now() + 5_000 };
  return new Promise<grpc.status>((resolve) => {
    const done = (err: unknown) => {
      client.close();
      resolve(err ? readServiceError(err).status : grpc.status.OK);
    };
    const fn = client.raw[method]!.bind(client.raw);
    if (def.requestStream && !def.responseStream) {
      const call = fn(client.metadata(), deadline, done);
      call.end();
    } else if (!def.requestStream && def.responseStream) {
      const call = fn({}, client.metadata(), deadline);
      call.on('data', () => {});
      call.on('error', done);
      call.on('end', () => done(undefined));
    } else if (def.requestStream && def.responseStream) {
      const call = fn(client.metadata(), deadline);
      call.on('data', () => {});
      call.on('error', done);
      call.on('end', () => done(undefined));
      call.end();
    } else {
      fn({}, client.metadata(), deadline, done);
    }
  });
}

const nothing: ClientCredential = { apply: () => {} };
/** What used to be trusted: the principal as base64 JSON, claiming to be a site admin. */
const forgedPrincipal: ClientCredential = {
  apply: (m) =>
    m.set(
      'x-policyhub-principal',
      Buffer.from(
        JSON.stringify({ userId: 'user-x', username: 'mallory', isSiteAdmin: true, memberships: {} }),
      ).toString('base64url'),
    ),
};
/** A well-formed assertion of a site admin, signed with a key the deployment does not hold. */
const foreignKey = new InternalAuth({ keys: generateSigningKeys(), service: 'gateway' }).credential;
const adminPrincipal = {
  userId: 'user-x',
  username: 'mallory',
  isSiteAdmin: true,
  memberships: new Map<string, readonly string[]>(),
};
const signedWithForeignKey: ClientCredential = { apply: (m) => foreignKey.apply(m, adminPrincipal) };
const randomToken = workerCredential(randomBytes(32).toString('base64url'));

describe('internal gRPC ports without the gateway', () => {
  it('refuses unsigned, forged and foreign-key callers on every method of every service', async () => {
    const seen: string[] = [];
    for (const { name, ctor, address } of everyService()) {
      for (const method of Object.keys(ctor.service)) {
        for (const [label, credential] of Object.entries({
          nothing,
          forgedPrincipal,
          signedWithForeignKey,
          randomToken,
        })) {
          const status = await callStatus(ctor, address, method, credential);
          expect(grpc.status[status], `${name}/${method} with ${label}`).toBe('UNAUTHENTICATED');
        }
        seen.push(`${name}/${method}`);
      }
    }
    // The walk covered the sensitive APIs the attack used.
    expect(seen).toEqual(
      expect.arrayContaining([
        'adminorgs.Identity/CreateUser',
        'adminorgs.Identity/CreateAuthenticationToken',
        'policysets.PolicySets/ListPolicySets',
        'runs.PolicyChecks/OverridePolicyCheck',
        'runs.PolicyEvaluator/ClaimPolicyCheck',
        'storage.Storage/GetObject',
      ]),
    );
  });

  it('lets the evaluator token reach the evaluator API only', async () => {
    const evaluator = workerCredential(t.system.workerTokens.evaluator);
    for (const { name, ctor, address } of everyService()) {
      for (const method of Object.keys(ctor.service)) {
        const status = await callStatus(ctor, address, method, evaluator);
        if (name === 'runs.PolicyEvaluator') {
          expect(grpc.status[status], `${name}/${method}`).not.toBe('UNAUTHENTICATED');
        } else {
          expect(grpc.status[status], `${name}/${method}`).toBe('UNAUTHENTICATED');
        }
      }
    }
  });

  it('answers grpc.health.v1 without a credential on every service port, with a status only', async () => {
    const Health = contracts().grpc.health.v1.Health;
    for (const [pkg, service] of Object.entries(PACKAGES)) {
      const health = new Health(t.system.services[service]!.address, grpc.credentials.createInsecure());
      const answer = await new Promise<unknown>((resolve, reject) =>
        health.Check({ service: '' }, (err: grpc.ServiceError | null, res: unknown) =>
          err ? reject(err) : resolve(res),
        ),
      );
      health.close();
      expect(answer, `${pkg} (${service})`).toEqual({ status: 'SERVING' });
    }
  });

  it('keeps serving the gateway: the API still works end to end', async () => {
    const org = await createOrganization(t);
    const res = await org.owner.api.get(`/organizations/${org.name}/policy-sets`);
    expect(res.status, res.text).toBe(200);
  });
});
