import { Readable } from 'node:stream';
import type * as grpc from '@grpc/grpc-js';
import type { FastifyReply } from 'fastify';

/** Safety net only: the services bound their own streams (upload timeouts, size limits). */
export const STREAM_DEADLINE_MS = 60 * 60 * 1000;

export interface StreamedBody<Res> {
  result: Res;
  /** False when the service answered before the body ended (a limit passed, a refusal). */
  bodyFullyRead: boolean;
}

/**
 * Streams an HTTP request body into a gRPC client stream: `first` (the header message) then the
 * body chunk by chunk as it arrives, waiting whenever the gRPC stream is full, so memory stays
 * flat whatever the size. Stops sending as soon as the service has answered. If the HTTP client
 * goes away mid-body the call is cancelled and the service discards the attempt. `start` opens the
 * call with the client's `clientStream`, which is in-process in embedded mode (docs/adr/0033).
 */
export function streamBody<Req, Res>(
  start: (callback: (err: grpc.ServiceError | null, res?: Res) => void) => grpc.ClientWritableStream<Req>,
  first: Req,
  wrap: (chunk: Buffer) => Req,
  body: AsyncIterable<Buffer>,
): Promise<StreamedBody<Res>> {
  return new Promise((resolve, reject) => {
    let answered = false;
    let bodyFullyRead = false;
    const call = start((err, res) => {
      answered = true;
      if (err) reject(Object.assign(err, { bodyFullyRead }));
      else resolve({ result: res as Res, bodyFullyRead });
    });
    const waitForRoom = () =>
      new Promise<void>((resume) => {
        const done = () => {
          call.off('drain', done);
          call.off('status', done);
          resume();
        };
        call.on('drain', done);
        call.on('status', done);
      });
    void (async () => {
      try {
        call.write(first);
        for await (const chunk of body) {
          if (answered) return;
          if (!call.write(wrap(chunk))) await waitForRoom();
        }
        bodyFullyRead = true;
        if (!answered) call.end();
      } catch {
        call.cancel();
      }
    })();
  });
}

/**
 * Sends a gRPC server stream of `{data}` chunks as the response body. The first message (or the
 * stream's error, e.g. NOT_FOUND) is awaited before anything is sent, so a refusal is still a
 * proper JSON:API error; after that the bytes flow with backpressure, and a client that goes
 * away cancels the call.
 */
export async function sendServerStream(
  reply: FastifyReply,
  contentType: string,
  call: grpc.ClientReadableStream<{ data: Buffer }>,
): Promise<FastifyReply> {
  const iterator = (call as unknown as AsyncIterable<{ data: Buffer }>)[Symbol.asyncIterator]();
  let first: IteratorResult<{ data: Buffer }>;
  try {
    first = await iterator.next();
  } catch (err) {
    call.cancel();
    throw err;
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      if (first.done) return;
      yield first.value.data;
      while (true) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value.data;
      }
    } finally {
      call.cancel();
    }
  }
  return reply
    .status(200)
    .type(contentType)
    .send(Readable.from(chunks(), { objectMode: false }));
}
