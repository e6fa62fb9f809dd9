import * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { notFound } from '@policyhub/errors';
import { registry } from '@policyhub/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/client.js';
import { enableInProcessCalls, serveInProcess } from '../src/in-process.js';
import type { ClientCredential } from '../src/internal-auth.js';
import {
  asServiceError,
  bindServer,
  createGrpcServer,
  implement,
  shutdownServer,
  streaming,
} from '../src/server.js';
import { readServiceError } from '../src/status.js';
import { inProcessCallers } from './support/in-process-callers.js';

/**
 * In-process client streams (embedded mode, docs/adr/0033): storage's Upload reached without
 * HTTP/2 behaves as over gRPC — the same message copies, backpressure, cancellation, errors and
 * caller checks. Each behaviour is compared with the same call over gRPC where both can be made.
 * In-process calls are process-wide, so this file has its own process (vitest forks).
 */
const pkg = () => contracts().policyhub;
const { alice, serverAuth, gateway, overGrpc, foreign } = inProcessCallers('storage');
const silent = { error: () => {} };

type UploadClient = ReturnType<typeof storageClient>;
const storageClient = (address: string, credential: ClientCredential) =>
  createClient(pkg().storage.v1.Storage, address, credential);

/** What the handler saw of one call. */
interface Seen {
  call: grpc.ServerReadableStream<unknown, unknown>;
  peer: string;
  caller: string | undefined;
  principal: string | undefined;
  messages: unknown[];
  headerSeen: Promise<void>;
  cancelled: Promise<void>;
}

/** Opens `Upload`, resolving the callback's outcome alongside the writable. */
function open(client: UploadClient, options?: { deadlineMs?: number; principal?: typeof alice }) {
  let settle!: (v: { err: grpc.ServiceError | null; res: unknown }) => void;
  const outcome = new Promise<{ err: grpc.ServiceError | null; res: unknown }>((r) => {
    settle = r;
  });
  const call = client.clientStream('Upload', options, (err, res) => settle({ err, res }));
  return { call, outcome };
}

describe('in-process client streams', () => {
  const seen: Seen[] = [];
  let gate: { open: () => void; opened: Promise<void> } | undefined;
  let server: grpc.Server;
  let address: string;
  let services: Array<[grpc.ServiceDefinition, grpc.UntypedServiceImplementation]>;

  const uploadHandler = () =>
    streaming(
      (
        call: grpc.ServerReadableStream<{ header?: { token?: string }; data?: Buffer }, unknown>,
        callback: grpc.sendUnaryData<unknown>,
      ) => {
        let headerSeen!: () => void;
        let cancelled!: () => void;
        const caller = serverAuth.authenticate(call.metadata);
        const entry: Seen = {
          call: call as never,
          peer: call.getPeer(),
          caller: caller?.kind,
          principal: caller?.kind === 'user' ? caller.principal.username : undefined,
          messages: [],
          headerSeen: new Promise((r) => {
            headerSeen = r;
          }),
          cancelled: new Promise((r) => {
            cancelled = r;
          }),
        };
        seen.push(entry);
        call.on('cancelled', () => cancelled());
        const iterator = (call as unknown as AsyncIterable<{ header?: { token?: string }; data?: Buffer }>)[
          Symbol.asyncIterator
        ]();
        (async () => {
          const first = await iterator.next();
          entry.messages.push(first.value);
          headerSeen();
          const token = first.value?.header?.token;
          if (token === 'missing') throw notFound('STORAGE_UPLOAD_NOT_FOUND');
          if (token === 'hang') return; // never answers: only a cancel or the deadline ends the call
          if (token === 'slow') await gate?.opened;
          let size = 0;
          for (;;) {
            const next = await iterator.next();
            if (next.done) break;
            entry.messages.push(next.value);
            size += next.value.data?.length ?? 0;
          }
          // `extra` is not in the contract; sha256 and the enum are left to their defaults.
          callback(null, { ok: true, ownerId: String(token), sizeBytes: size, extra: 'not in the proto' });
        })().catch((err: unknown) => {
          if (!call.cancelled) callback(asServiceError(err, 'Upload', { logger: silent }));
        });
      },
    );

  beforeAll(async () => {
    server = createGrpcServer();
    services = [
      [
        pkg().storage.v1.Storage.service,
        implement({ Upload: uploadHandler() } as never, { logger: silent, auth: serverAuth }),
      ],
    ];
    for (const [definition, implementation] of services) server.addService(definition, implementation);
    address = await bindServer(server, '127.0.0.1:0');
  });
  afterAll(async () => {
    await shutdownServer(server);
  });

  /** One upload: the header, then `chunks`, then the end. */
  async function upload(credential: ClientCredential, token: string, chunks: Buffer[] = []) {
    const client = storageClient(address, credential);
    try {
      const { call, outcome } = open(client, { principal: alice });
      call.write({ header: { token } });
      for (const data of chunks) call.write({ data });
      call.end();
      const { err, res } = await outcome;
      if (err) throw err;
      return { res, seen: seen.at(-1)! };
    } finally {
      client.close();
    }
  }

  it('are off unless the process turns them on: the stream crosses gRPC', async () => {
    expect(serveInProcess(address, services)).toBeTypeOf('function');
    const { seen: s } = await upload(gateway, 'echo', [Buffer.from('abc')]);
    expect(s.peer).not.toBe('in-process');
    expect(s).toMatchObject({ caller: 'user', principal: 'alice' });
  });

  it('hand the handler copies made by the request codec and the caller one made by the response codec', async () => {
    enableInProcessCalls();
    const withdraw = serveInProcess(address, services);
    try {
      const written = Buffer.from('hello');
      const client = storageClient(address, gateway);
      const { call, outcome } = open(client, { principal: alice });
      call.write({ header: { token: 'echo', notInTheContract: 1 } } as never);
      call.write({ data: written });
      written.fill(0); // the message was encoded when written, as over the wire
      call.end();
      const local = await outcome;
      client.close();
      const localSeen = seen.at(-1)!;
      expect(localSeen.peer).toBe('in-process');
      // The handler reads the caller from the metadata the call would have carried.
      expect(localSeen).toMatchObject({ caller: 'user', principal: 'alice' });
      expect((localSeen.messages[1] as { data: Buffer }).data.toString()).toBe('hello');

      const remote = await upload(overGrpc, 'echo', [Buffer.from('hello')]);
      expect(remote.seen.peer).not.toBe('in-process');
      expect(localSeen.messages).toEqual(remote.seen.messages);
      expect(local.err).toBeNull();
      expect(local.res).toEqual(remote.res);
      expect(local.res).not.toHaveProperty('extra');
      expect(local.res).toMatchObject({
        ok: true,
        ownerId: 'echo',
        sizeBytes: 5,
        ownerKind: expect.anything(),
      });
    } finally {
      withdraw();
    }
  });

  it('push back on the writer while the handler does not read, and deliver everything once it does', async () => {
    const withdraw = serveInProcess(address, services);
    let release!: () => void;
    gate = {
      open: () => release(),
      opened: new Promise((r) => {
        release = r;
      }),
    };
    try {
      const client = storageClient(address, gateway);
      const { call, outcome } = open(client);
      call.write({ header: { token: 'slow' } });
      await seen.at(-1)!.headerSeen;
      const handlerCall = seen.at(-1)!.call;
      const chunk = Buffer.alloc(64 * 1024, 1);
      let accepted = 0;
      while (accepted < 1000 && call.write({ data: chunk })) accepted++;
      // Nothing more is taken than the two buffers hold (16 messages each), however long the body.
      expect(accepted).toBeLessThan(40);
      expect(handlerCall.readableLength).toBeLessThanOrEqual(16);
      let drained = false;
      call.once('drain', () => {
        drained = true;
      });
      await new Promise((r) => setImmediate(r));
      expect(drained).toBe(false); // the handler has not read, so the writer must keep waiting
      gate.open();
      await new Promise<void>((r) => call.once('drain', r));
      for (let i = 0; i < 100; i++) {
        if (!call.write({ data: chunk })) await new Promise((r) => call.once('drain', r));
      }
      call.end();
      const { err, res } = await outcome;
      client.close();
      expect(err).toBeNull();
      expect(res).toMatchObject({ sizeBytes: (accepted + 1 + 100) * chunk.length });
    } finally {
      gate = undefined;
      withdraw();
    }
  });

  it('end the call for the handler when the caller cancels, as over gRPC', async () => {
    const withdraw = serveInProcess(address, services);
    try {
      const cancel = async (credential: ClientCredential) => {
        const client = storageClient(address, credential);
        const { call, outcome } = open(client);
        call.write({ header: { token: 'hang' } });
        await seen.at(-1)!.headerSeen;
        const handler = seen.at(-1)!;
        call.write({ data: Buffer.from('partial') });
        call.cancel();
        const { err } = await outcome;
        await handler.cancelled;
        client.close();
        return { err, handler };
      };
      const local = await cancel(gateway);
      const remote = await cancel(overGrpc);
      expect(local.handler.peer).toBe('in-process');
      expect(local.handler.call.cancelled).toBe(true);
      expect(remote.handler.call.cancelled).toBe(true);
      expect(local.err).toMatchObject({ code: grpc.status.CANCELLED, details: remote.err!.details });
      expect(local.err!.message).toBe(remote.err!.message);
    } finally {
      withdraw();
    }
  });

  it('end the call for both sides when the deadline passes', async () => {
    const withdraw = serveInProcess(address, services);
    try {
      const client = storageClient(address, gateway);
      const { call, outcome } = open(client, { deadlineMs: 50 });
      call.write({ header: { token: 'hang' } });
      const handler = seen.at(-1)!;
      const { err } = await outcome;
      await handler.cancelled;
      client.close();
      expect(err).toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
      expect(handler.call.cancelled).toBe(true);
    } finally {
      withdraw();
    }
  });

  it('fail with the status and error details the caller would read over gRPC', async () => {
    const withdraw = serveInProcess(address, services);
    try {
      const local = await upload(gateway, 'missing').catch((err: unknown) => err);
      expect(seen.at(-1)!.peer).toBe('in-process');
      const remote = await upload(overGrpc, 'missing').catch((err: unknown) => err);
      expect(local).toMatchObject({ code: grpc.status.NOT_FOUND });
      expect(readServiceError(local)).toEqual(readServiceError(remote));
      expect((local as Error).message).toBe((remote as Error).message);
    } finally {
      withdraw();
    }
  });

  it('refuse a credential signed with another key and callers the service does not allow', async () => {
    const withdraw = serveInProcess(address, services);
    // A service of this process that accepts evaluators only (reached in-process: never bound).
    const evaluatorsOnly = 'in-process-test:1';
    const withdrawOther = serveInProcess(evaluatorsOnly, [
      [
        pkg().storage.v1.Storage.service,
        implement({ Upload: uploadHandler() } as never, {
          logger: silent,
          auth: serverAuth,
          allow: ['evaluator'],
        }),
      ],
    ]);
    try {
      const before = seen.length;
      const refused = await upload(foreign, 'echo').catch((err: unknown) => err);
      expect(refused).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
      const client = storageClient(evaluatorsOnly, gateway);
      const { call, outcome } = open(client);
      call.write({ header: { token: 'echo' } });
      call.end();
      expect((await outcome).err).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
      client.close();
      expect(seen.length).toBe(before);
    } finally {
      withdrawOther();
      withdraw();
    }
  });

  it('are timed into policyhub_rpc_duration_seconds as over gRPC', async () => {
    const withdraw = serveInProcess(address, services);
    try {
      const count = async (code: string) => {
        const metric = await registry.getSingleMetric('policyhub_rpc_duration_seconds')!.get();
        const sample = (
          metric.values as Array<(typeof metric.values)[number] & { metricName?: string }>
        ).find(
          (v) =>
            v.metricName === 'policyhub_rpc_duration_seconds_count' &&
            v.labels.service === 'policyhub.storage.v1.Storage' &&
            v.labels.method === 'Upload' &&
            v.labels.code === code,
        );
        return sample?.value ?? 0;
      };
      const [ok, notFoundCount] = [await count('OK'), await count('NOT_FOUND')];
      await upload(gateway, 'echo');
      await upload(gateway, 'missing').catch(() => {});
      expect(await count('OK')).toBe(ok + 1);
      expect(await count('NOT_FOUND')).toBe(notFoundCount + 1);
    } finally {
      withdraw();
    }
  });
});
