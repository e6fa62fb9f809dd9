import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/client.js';
import {
  ASSERTION_METADATA_KEY,
  type ClientCredential,
  generateSigningKeys,
  InternalAuth,
  parseSigningKeys,
  parseWorkerTokens,
  workerCredential,
} from '../src/internal-auth.js';
import { type Principal, principalOf } from '@policyhub/permissions';
import { bindServer, createGrpcServer, implement, shutdownServer, streaming } from '../src/server.js';

const alice = principalOf({ userId: 'user-alice', username: 'alice', isSiteAdmin: false }, [
  ['acme', ['read-runs']],
  ['constructor', ['manage-policies']],
]);
const secret = (c: string) => c.repeat(40);
const EVALUATOR_TOKEN = 'e'.repeat(48);
const EXECUTOR_TOKEN = 'x'.repeat(48);

const metadataOf = (credential: ClientCredential, principal: Principal | undefined = alice) => {
  const metadata = new grpc.Metadata();
  credential.apply(metadata, principal);
  return metadata;
};

describe('signed internal assertions', () => {
  const keys = parseSigningKeys(`k1:${secret('a')}`);

  it('carries the principal, memberships named like Object.prototype keys included', () => {
    const gateway = new InternalAuth({ keys, service: 'gateway' });
    const service = new InternalAuth({ keys, service: 'policy-sets' });
    const caller = service.authenticate(metadataOf(gateway.credential));
    expect(caller).toMatchObject({ kind: 'user', service: 'gateway' });
    const principal = caller?.kind === 'user' ? caller.principal : undefined;
    expect(principal?.memberships.get('constructor')).toEqual(['manage-policies']);
    expect(principal?.memberships.has('toString')).toBe(false);
    const internal = new grpc.Metadata();
    gateway.credential.apply(internal, undefined);
    expect(service.authenticate(internal)).toEqual({
      kind: 'service',
      service: 'gateway',
    });
  });

  it('refuses a changed payload, another key, an unknown key id, and an expired assertion', () => {
    let now = 1_000_000;
    const signer = new InternalAuth({ keys, service: 'gateway', now: () => now });
    const verifier = new InternalAuth({ keys, service: 'runs', now: () => now });
    const assertion = signer.signUser(alice);
    const [kid, body, sig] = assertion.split('.') as [string, string, string];
    const admin = Buffer.from(
      Buffer.from(body, 'base64url').toString().replace('"isSiteAdmin":false', '"isSiteAdmin":true'),
    ).toString('base64url');
    const refused = (value: string) => {
      const m = new grpc.Metadata();
      m.set(ASSERTION_METADATA_KEY, value);
      return verifier.authenticate(m);
    };
    expect(refused(assertion)).toMatchObject({ kind: 'user' });
    expect(refused(`${kid}.${admin}.${sig}`)).toBeUndefined();
    expect(refused(`k2.${body}.${sig}`)).toBeUndefined();
    const stranger = new InternalAuth({ keys: parseSigningKeys(`k1:${secret('b')}`), service: 'x' });
    expect(refused(stranger.signUser(alice))).toBeUndefined();
    now += 300 + 61;
    expect(refused(signer.signService())).toMatchObject({ kind: 'service' });
    expect(refused(assertion)).toBeUndefined();
  });

  it('rotates keys: verifiers accept every listed key, signers use the first', () => {
    const [oldKey, newKey] = parseSigningKeys(`old:${secret('o')},new:${secret('n')}`);
    const oldSigner = new InternalAuth({ keys: [oldKey!], service: 'gateway' });
    const rotating = new InternalAuth({ keys: [newKey!, oldKey!], service: 'gateway' });
    const oldOnly = new InternalAuth({ keys: [oldKey!], service: 'runs' });
    expect(rotating.authenticate(metadataOf(oldSigner.credential))).toMatchObject({ kind: 'user' });
    expect(rotating.signService().startsWith('new.')).toBe(true);
    expect(oldOnly.authenticate(metadataOf(rotating.credential))).toBeUndefined();
  });

  it('accepts configured worker tokens as their role only', () => {
    const runs = new InternalAuth({
      keys,
      service: 'runs',
      workerTokens: { evaluator: [EVALUATOR_TOKEN], executor: [EXECUTOR_TOKEN] },
    });
    expect(runs.authenticate(metadataOf(workerCredential(EVALUATOR_TOKEN)))).toEqual({ kind: 'evaluator' });
    expect(runs.authenticate(metadataOf(workerCredential(EXECUTOR_TOKEN)))).toEqual({ kind: 'executor' });
    expect(runs.authenticate(metadataOf(workerCredential('z'.repeat(48))))).toBeUndefined();
  });

  it('validates key and token configuration', () => {
    expect(() => parseSigningKeys('')).toThrow(/at least one/);
    expect(() => parseSigningKeys('k1:short')).toThrow(/at least 32/);
    expect(() => parseSigningKeys(secret('a'))).toThrow(/<id>:<secret>/);
    expect(() => parseSigningKeys(`a:${secret('a')},a:${secret('b')}`)).toThrow(/twice/);
    expect(() => parseWorkerTokens('short')).toThrow(/at least 32/);
  });
});

describe('services refuse calls without valid proof', () => {
  const pkg = () => contracts().policyhub;
  const keys = generateSigningKeys();
  const serverAuth = new InternalAuth({
    keys,
    service: 'runs',
    workerTokens: { evaluator: [EVALUATOR_TOKEN], executor: [EXECUTOR_TOKEN] },
  });
  const gateway = new InternalAuth({ keys, service: 'gateway' }).credential;
  const forger = new InternalAuth({ keys: generateSigningKeys(), service: 'gateway' }).credential;
  const nothing: ClientCredential = { apply: () => {} };
  /** What the gateway used to send: the principal as plain base64 JSON, trusted as is. */
  const legacyForgery: ClientCredential = {
    apply: (m: grpc.Metadata) =>
      m.set(
        'x-policyhub-principal',
        Buffer.from(
          JSON.stringify({ userId: 'u', username: 'u', isSiteAdmin: true, memberships: {} }),
        ).toString('base64url'),
      ),
  };
  let server: grpc.Server;
  let address: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createGrpcServer();
    const silent = { error: () => {} };
    server.addService(
      pkg().adminorgs.v1.Identity.service,
      implement(
        {
          Authenticate: async (_req: unknown, ctx: { caller: { kind: string } }) => {
            seen.push(ctx.caller.kind);
            return { principal: { userId: 'u', username: 'u', isSiteAdmin: false, memberships: [] } };
          },
        } as never,
        { logger: silent, auth: serverAuth },
      ),
    );
    server.addService(
      pkg().runs.v1.PolicyEvaluator.service,
      implement({ ClaimPolicyCheck: async () => ({ claimed: false }) } as never, {
        logger: silent,
        auth: serverAuth,
        allow: ['evaluator'],
      }),
    );
    server.addService(
      pkg().storage.v1.Storage.service,
      implement(
        {
          PutObject: streaming(
            (call: grpc.ServerReadableStream<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
              call.on('data', () => {});
              call.on('end', () => callback(null, { key: 'k', sizeBytes: 0 }));
            },
          ),
          GetObject: streaming((call: grpc.ServerWritableStream<unknown, unknown>) => {
            call.write({ data: Buffer.from('secret archive') });
            call.end();
          }),
        } as never,
        { logger: silent, auth: serverAuth, allow: ['service'] },
      ),
    );
    address = await bindServer(server, '127.0.0.1:0');
  });
  afterAll(async () => {
    await shutdownServer(server);
  });

  const authenticate = async (credential: ClientCredential) => {
    const client = createClient(pkg().adminorgs.v1.Identity, address, credential);
    try {
      return await client.Authenticate({ token: 't' }, { principal: alice });
    } finally {
      client.close();
    }
  };

  it('answers UNAUTHENTICATED to unsigned, forged and foreign-key calls, and serves signed ones', async () => {
    const before = seen.length;
    for (const credential of [nothing, legacyForgery, forger, workerCredential(EVALUATOR_TOKEN)]) {
      await expect(authenticate(credential)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    }
    expect(seen.length).toBe(before);
    await expect(authenticate(gateway)).resolves.toMatchObject({ principal: { userId: 'u' } });
    expect(seen.at(-1)).toBe('user');
  });

  it('lets only the evaluator token reach the evaluator API', async () => {
    const claim = async (credential: ClientCredential) => {
      const client = createClient(pkg().runs.v1.PolicyEvaluator, address, credential);
      try {
        return await client.ClaimPolicyCheck({ evaluatorId: 'e', leaseSeconds: 10 });
      } finally {
        client.close();
      }
    };
    for (const credential of [gateway, workerCredential(EXECUTOR_TOKEN), nothing]) {
      await expect(claim(credential)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    }
    await expect(claim(workerCredential(EVALUATOR_TOKEN))).resolves.toMatchObject({ claimed: false });
  });

  it('refuses streaming object calls without a service credential', async () => {
    const read = (credential: ClientCredential) =>
      new Promise<string>((resolve, reject) => {
        const client = createClient(pkg().storage.v1.Storage, address, credential);
        const chunks: Buffer[] = [];
        const call = client.raw.GetObject({ key: 'org/archive.tgz' }, client.metadata());
        call.on('data', (c: { data: Buffer }) => chunks.push(c.data));
        call.on('error', (err) => {
          client.close();
          reject(err);
        });
        call.on('end', () => {
          client.close();
          resolve(Buffer.concat(chunks).toString());
        });
      });
    await expect(read(nothing)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    await expect(read(workerCredential(EVALUATOR_TOKEN))).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
    await expect(read(gateway)).resolves.toBe('secret archive');

    const put = (credential: ClientCredential) =>
      new Promise<void>((resolve, reject) => {
        const client = createClient(pkg().storage.v1.Storage, address, credential);
        const call = client.raw.PutObject(client.metadata(), (err) => {
          client.close();
          if (err) reject(err);
          else resolve();
        });
        call.write({ header: { key: 'org/x', contentType: 'text/plain' } });
        call.end();
      });
    await expect(put(forger)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    await expect(put(gateway)).resolves.toBeUndefined();
  });
});
