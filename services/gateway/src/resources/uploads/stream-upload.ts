import type { storageV1 } from '@policyhub/contracts';
import type { Clients } from '../../clients/index.js';

/**
 * Safety net only: storage enforces the real upload timeout (UPLOAD_TIMEOUT_SECONDS) and answers
 * with a clear error before this passes.
 */
const UPLOAD_DEADLINE_MS = 60 * 60 * 1000;

export interface StreamedUpload {
  result: storageV1.UploadResult__Output;
  /** False when storage answered before the body ended (limit passed, bad token). */
  bodyFullyRead: boolean;
}

/**
 * Streams an HTTP request body to storage's Upload client stream: the token first, then the body
 * chunk by chunk as it arrives, waiting whenever the gRPC stream is full, so memory stays flat
 * whatever the archive size. Stops sending as soon as storage has answered. If the HTTP client
 * goes away mid-body the call is cancelled and storage discards the attempt.
 */
export function streamUpload(
  storage: Clients['storage'],
  token: string,
  body: AsyncIterable<Buffer>,
): Promise<StreamedUpload> {
  return new Promise((resolve, reject) => {
    let answered = false;
    let bodyFullyRead = false;
    const call = storage.raw.Upload(
      storage.metadata(),
      { deadline: Date.now() + UPLOAD_DEADLINE_MS },
      (err, result) => {
        answered = true;
        if (err) reject(Object.assign(err, { bodyFullyRead }));
        else resolve({ result: result!, bodyFullyRead });
      },
    );
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
        call.write({ token });
        for await (const chunk of body) {
          if (answered) return;
          if (!call.write({ data: chunk })) await waitForRoom();
        }
        bodyFullyRead = true;
        if (!answered) call.end();
      } catch {
        // The HTTP client went away: nothing must be stored for this attempt.
        call.cancel();
      }
    })();
  });
}
