import type * as grpc from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { notFound } from '@policyhub/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/client.js';
import { enableInProcessCalls, serveInProcess } from '../src/in-process.js';
import { ASSERTION_METADATA_KEY, type ClientCredential } from '../src/internal-auth.js';
import { bindServer, createGrpcServer, implement, shutdownServer } from '../src/server.js';
import { readServiceError } from '../src/status.js';
import { inProcessCallers } from './support/in-process-callers.js';

/**
 * In-process calls (embedded mode): the same handlers, reached without HTTP/2 by credentials of
 * the deployment; every other caller, and every call while they are off, goes over gRPC.
 * In-process calls are process-wide, so this file has its own process (vitest forks).
 */
const pkg = () => contracts().policyhub;
const { alice, serverAuth, gateway, overGrpc, foreign } = inProcessCallers('admin-orgs');

interface Seen {
  token: unknown;
  caller: string;
  principal: string | undefined;
  assertion: number;
}

describe('in-process calls', () => {
  const seen: Seen[] = [];
  let server: grpc.Server;
  let address: string;
  let services: Array<[grpc.ServiceDefinition, grpc.UntypedServiceImplementation]>;

  beforeAll(async () => {
    server = createGrpcServer();
    const silent = { error: () => {} };
    services = [
      [
        pkg().adminorgs.v1.Identity.service,
        implement(
          {
            Authenticate: async (
              req: { token: string },
              ctx: { caller: { kind: string }; principal?: { username: string }; metadata: grpc.Metadata },
            ) => {
              seen.push({
                token: req.token,
                caller: ctx.caller.kind,
                principal: ctx.principal?.username,
                assertion: ctx.metadata.get(ASSERTION_METADATA_KEY).length,
              });
              if (req.token === 'missing') throw notFound('RUNS_RUN_NOT_FOUND');
              // A handler stuck on a dependency that does not answer (a hung database).
              if (req.token === 'hang') await new Promise((resolve) => setTimeout(resolve, 5_000));
              // `extra` is not in the contract; memberships is left out.
              return {
                principal: { userId: 'u', username: 'u', isSiteAdmin: false, extra: 'not in the proto' },
              };
            },
          } as never,
          { logger: silent, auth: serverAuth },
        ),
      ],
      [
        pkg().runs.v1.PolicyEvaluator.service,
        implement({ ClaimPolicyCheck: async () => ({ claimed: false }) } as never, {
          logger: silent,
          auth: serverAuth,
          allow: ['evaluator'],
        }),
      ],
    ];
    for (const [definition, implementation] of services) server.addService(definition, implementation);
    address = await bindServer(server, '127.0.0.1:0');
  });
  afterAll(async () => {
    await shutdownServer(server);
  });

  const authenticate = async (credential: ClientCredential, token = 't') => {
    const client = createClient(pkg().adminorgs.v1.Identity, address, credential);
    try {
      return await client.Authenticate({ token }, { principal: alice });
    } finally {
      client.close();
    }
  };

  it('are off unless the process turns them on: the call crosses gRPC with its assertion', async () => {
    expect(serveInProcess(address, services)).toBeTypeOf('function');
    await authenticate(gateway);
    expect(seen.at(-1)).toMatchObject({ caller: 'user', principal: 'alice', assertion: 1 });
  });

  it('reach the handler without gRPC, with the caller, the contract defaults and the contract shape', async () => {
    enableInProcessCalls();
    const withdraw = serveInProcess(address, services);
    try {
      const client = createClient(pkg().adminorgs.v1.Identity, address, gateway);
      const answer = await client.Authenticate({} as never, { principal: alice });
      client.close();
      // No assertion travelled; the request got the proto default, the response lost what the
      // contract does not have and gained its defaults, exactly as over the wire.
      expect(seen.at(-1)).toEqual({ token: '', caller: 'user', principal: 'alice', assertion: 0 });
      expect(answer).toEqual({
        principal: {
          userId: 'u',
          username: 'u',
          isSiteAdmin: false,
          memberships: [],
          tokenExpiredAt: null,
          kind: 'PRINCIPAL_KIND_UNSPECIFIED',
        },
      });
      expect(await authenticate(overGrpc)).toEqual(answer);
    } finally {
      withdraw();
    }
  });

  it('fail with the status and error details the caller would read over gRPC', async () => {
    const withdraw = serveInProcess(address, services);
    try {
      const local = await authenticate(gateway, 'missing').catch((err: unknown) => err);
      const remote = await authenticate(overGrpc, 'missing').catch((err: unknown) => err);
      expect(local).toMatchObject({ code: status.NOT_FOUND });
      expect(readServiceError(local)).toEqual(readServiceError(remote));
      expect((local as Error).message).toBe((remote as Error).message);
    } finally {
      withdraw();
    }
  });

  it('end with DEADLINE_EXCEEDED when the deadline passes, as over gRPC', async () => {
    const withdraw = serveInProcess(address, services);
    const call = async (credential: ClientCredential) => {
      const client = createClient(pkg().adminorgs.v1.Identity, address, credential);
      try {
        return await client
          .Authenticate({ token: 'hang' }, { principal: alice, deadlineMs: 200 })
          .catch((err: unknown) => err);
      } finally {
        client.close();
      }
    };
    try {
      const [local, remote] = await Promise.all([call(gateway), call(overGrpc)]);
      expect(local).toMatchObject({ code: status.DEADLINE_EXCEEDED });
      expect(remote).toMatchObject({ code: status.DEADLINE_EXCEEDED });
    } finally {
      withdraw();
    }
  });

  it('refuse a credential signed with another key and callers the service does not allow', async () => {
    const withdraw = serveInProcess(address, services);
    try {
      const before = seen.length;
      await expect(authenticate(foreign)).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
      expect(seen.length).toBe(before);
      const evaluator = createClient(pkg().runs.v1.PolicyEvaluator, address, gateway);
      await expect(evaluator.ClaimPolicyCheck({ evaluatorId: 'e', leaseSeconds: 10 })).rejects.toMatchObject({
        code: status.UNAUTHENTICATED,
      });
      evaluator.close();
    } finally {
      withdraw();
    }
  });

  it('stop when the server withdraws them: calls cross gRPC again', async () => {
    serveInProcess(address, services)();
    await authenticate(gateway);
    expect(seen.at(-1)).toMatchObject({ caller: 'user', assertion: 1 });
  });
});
