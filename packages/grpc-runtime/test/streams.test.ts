import { Readable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { contracts, type storageV1 } from '@policyhub/contracts';
import { isAppError, notFound } from '@policyhub/errors';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../src/client.js';
import { bindServer, createGrpcServer, implement, shutdownServer, streaming } from '../src/server.js';
import { readServiceError } from '../src/status.js';
import { callerPrincipal, type HeaderSpec, headerThenData, respond, serveStream } from '../src/streams.js';
import { inProcessCallers } from './support/in-process-callers.js';

/**
 * The streaming plumbing services share, served over gRPC with storage's contract: Upload (a
 * client stream: header, then data) and GetObject (a server stream of data).
 */
const { alice, serverAuth, overGrpc } = inProcessCallers('storage');
const HEADER: HeaderSpec = { field: 'header', errorCode: 'STORAGE_INVALID_STREAM' };
const CHUNK = 16 * 1024;

type Client = ReturnType<typeof storageClient>;
const storageClient = (address: string) =>
  createClient(contracts().policyhub.storage.v1.Storage, address, overGrpc);

/** What the GetObject handler's sources report, by key. */
const sources = new Map<string, { chunksRead: number; closed: boolean }>();

/** A source of `count` chunks (endless when undefined) that fails after `failAfter` chunks. */
async function* chunks(key: string, count: number | undefined, failAfter?: number): AsyncGenerator<Buffer> {
  const state = { chunksRead: 0, closed: false };
  sources.set(key, state);
  try {
    for (let i = 0; count === undefined || i < count; i++) {
      if (i === failAfter) throw notFound('STORAGE_OBJECT_NOT_FOUND');
      state.chunksRead += 1;
      yield Buffer.alloc(CHUNK, i % 251);
      // A source that waits for I/O, as files and sockets do: a runaway reader shows as a count.
      await new Promise(setImmediate);
    }
  } finally {
    state.closed = true;
  }
}

describe('stream plumbing', () => {
  const logged: Array<{ obj: object; msg: string }> = [];
  const options = {
    logger: { error: (obj: object, msg: string) => logged.push({ obj, msg }) },
    auth: serverAuth,
  };
  let server: grpc.Server;
  let address: string;
  let client: Client;

  beforeAll(async () => {
    server = createGrpcServer();
    server.addService(
      contracts().policyhub.storage.v1.Storage.service,
      implement(
        {
          Upload: streaming(
            (
              call: grpc.ServerReadableStream<storageV1.UploadRequest__Output, unknown>,
              callback: grpc.sendUnaryData<unknown>,
            ) =>
              respond(call, callback, 'Upload', options, async () => {
                const { first, data } = await headerThenData(call, HEADER);
                let size = 0;
                for await (const chunk of data) size += chunk.length;
                const token = first.header?.token;
                if (token === 'missing') throw notFound('STORAGE_UPLOAD_NOT_FOUND');
                if (token === 'broken') throw new Error('the cause stays in the log');
                return { ok: true, ownerId: callerPrincipal(call, options)?.username ?? '', sizeBytes: size };
              }),
          ),
          GetObject: streaming((call: grpc.ServerWritableStream<{ key: string }, { data: Buffer }>) =>
            serveStream(call, 'GetObject', options, async () => {
              const [kind, count] = call.request.key.split('/');
              if (kind === 'missing') throw notFound('STORAGE_OBJECT_NOT_FOUND');
              if (kind === 'endless') return chunks(call.request.key, undefined);
              if (kind === 'failing') return chunks(call.request.key, 10, 3);
              return chunks(call.request.key, Number(count));
            }),
          ),
        } as never,
        { ...options, allow: ['user', 'service'] },
      ),
    );
    address = await bindServer(server, '127.0.0.1:0');
    client = storageClient(address);
  });
  afterAll(async () => {
    client.close();
    await shutdownServer(server);
  });

  /** One Upload with these messages; resolves the answer or rejects with the status. */
  function upload(messages: storageV1.UploadRequest[], principal?: typeof alice) {
    return new Promise<unknown>((resolve, reject) => {
      const call = client.clientStream('Upload', { principal }, (err, res) =>
        err ? reject(err) : resolve(res),
      );
      for (const message of messages) call.write(message);
      call.end();
    });
  }

  /** Reads GetObject for `key` to its end: the bytes received and the status it ended with. */
  function download(key: string) {
    return new Promise<{ bytes: Buffer; error: grpc.ServiceError | undefined }>((resolve) => {
      const received: Buffer[] = [];
      const call = (
        client.raw as unknown as {
          GetObject(req: { key: string }, md: grpc.Metadata): grpc.ClientReadableStream<{ data: Buffer }>;
        }
      ).GetObject({ key }, client.metadata());
      call.on('data', (m: { data: Buffer }) => received.push(m.data));
      call.on('error', (error: grpc.ServiceError) => resolve({ bytes: Buffer.concat(received), error }));
      call.on('end', () => resolve({ bytes: Buffer.concat(received), error: undefined }));
    });
  }

  describe('headerThenData and respond (client streams)', () => {
    it('hands the handler the header and then every data chunk, and answers with its result', async () => {
      const data = [Buffer.alloc(100_000, 1), Buffer.from('tail')];
      const res = await upload([{ header: { token: 't' } }, ...data.map((d) => ({ data: d }))], alice);
      expect(res).toMatchObject({ ok: true, ownerId: 'alice', sizeBytes: 100_004 });
    });

    it('finds no user behind a service call', async () => {
      expect(await upload([{ header: { token: 't' } }])).toMatchObject({ ownerId: '', sizeBytes: 0 });
    });

    it('refuses a stream whose first message is not the header, pointing at the header', async () => {
      const err = await upload([{ data: Buffer.from('x') }]).catch((e: unknown) => e);
      expect(readServiceError(err)).toMatchObject({
        status: grpc.status.INVALID_ARGUMENT,
        code: 'STORAGE_INVALID_STREAM',
        items: [expect.objectContaining({ field: '/header', detail: 'the first message must carry header' })],
      });
    });

    it('refuses a header after the first message', async () => {
      const err = await upload([{ header: { token: 't' } }, { header: { token: 'again' } }]).catch(
        (e: unknown) => e,
      );
      expect(readServiceError(err)).toMatchObject({
        status: grpc.status.INVALID_ARGUMENT,
        code: 'STORAGE_INVALID_STREAM',
        items: [
          expect.objectContaining({ field: 'data', detail: 'only the first message may carry header' }),
        ],
      });
    });

    it('names the header as the service does on the wire', async () => {
      const stream = Readable.from([{ part: 'data', data: Buffer.from('x') }]);
      const err = await headerThenData(stream as never, {
        field: 'runId',
        name: 'run_id',
        errorCode: 'RUNS_INVALID_STREAM',
      }).catch((e: unknown) => e);
      expect(isAppError(err) && err.items).toEqual([
        expect.objectContaining({ field: '/run_id', detail: 'the first message must carry run_id' }),
      ]);
    });

    it('maps a domain error to its status', async () => {
      const err = await upload([{ header: { token: 'missing' } }]).catch((e: unknown) => e);
      expect(readServiceError(err)).toMatchObject({
        status: grpc.status.NOT_FOUND,
        code: 'STORAGE_UPLOAD_NOT_FOUND',
      });
    });

    it('answers an unexpected failure with INTERNAL and logs its cause with the method, never sends it', async () => {
      const err = (await upload([{ header: { token: 'broken' } }]).catch(
        (e: unknown) => e,
      )) as grpc.ServiceError;
      expect(err).toMatchObject({ code: grpc.status.INTERNAL, details: 'internal error' });
      expect(logged.at(-1)).toMatchObject({ msg: 'rpc failed', obj: { method: 'Upload' } });
      expect(String((logged.at(-1)!.obj as { err: Error }).err.message)).toBe('the cause stays in the log');
    });
  });

  describe('serveStream (server streams)', () => {
    it('sends every chunk in order, more than the transport buffers at once, and ends OK', async () => {
      const { bytes, error } = await download('whole/200');
      expect(error).toBeUndefined();
      expect(bytes.length).toBe(200 * CHUNK);
      for (let i = 0; i < 200; i++) expect(bytes[i * CHUNK]).toBe(i % 251);
      expect(sources.get('whole/200')).toEqual({ chunksRead: 200, closed: true });
    });

    it("ends with the source's error before any data when opening it fails", async () => {
      const { bytes, error } = await download('missing');
      expect(bytes.length).toBe(0);
      expect(readServiceError(error)).toMatchObject({
        status: grpc.status.NOT_FOUND,
        code: 'STORAGE_OBJECT_NOT_FOUND',
      });
    });

    it('ends with the error status when the source fails part-way', async () => {
      const { bytes, error } = await download('failing');
      expect(bytes.length).toBeLessThanOrEqual(3 * CHUNK);
      expect(readServiceError(error)).toMatchObject({ status: grpc.status.NOT_FOUND });
      expect(sources.get('failing')?.closed).toBe(true);
    });

    it('stops reading and closes the source when the caller goes away', async () => {
      const call = (
        client.raw as unknown as {
          GetObject(req: { key: string }, md: grpc.Metadata): grpc.ClientReadableStream<{ data: Buffer }>;
        }
      ).GetObject({ key: 'endless' }, client.metadata());
      call.on('error', () => {});
      await new Promise<void>((resolve) => call.once('data', () => resolve()));
      call.pause();
      // Room for a source that ignores backpressure to run ahead (a pause, not a measurement).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const readWhilePaused = sources.get('endless')!.chunksRead;
      call.cancel();
      await vi.waitFor(() => expect(sources.get('endless')?.closed).toBe(true), { timeout: 10_000 });
      // Backpressure held the source to what the transport buffers while the caller did not read.
      expect(readWhilePaused).toBeLessThan(500);
    });
  });
});
