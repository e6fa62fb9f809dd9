import type { storageV1 } from '@policyhub/contracts';
import type { Clients } from '../../clients/index.js';
import { type StreamedBody, streamBody } from '../../grpc-streams.js';

/**
 * Safety net only: storage enforces the real upload timeout (UPLOAD_TIMEOUT_SECONDS) and answers
 * with a clear error before this passes.
 */
const UPLOAD_DEADLINE_MS = 60 * 60 * 1000;

export type StreamedUpload = StreamedBody<storageV1.UploadResponse__Output>;

/**
 * Streams an HTTP request body to storage's Upload client stream: the header (the capability
 * token) first, then the body chunk by chunk as it arrives, with backpressure, so memory stays
 * flat whatever the archive size (see streamBody). If the HTTP client goes away mid-body the call
 * is cancelled and storage discards the attempt. In embedded mode the stream is in-process
 * (docs/adr/0033), with the same messages, backpressure, cancellation and errors.
 */
export function streamUpload(
  storage: Clients['storage'],
  token: string,
  body: AsyncIterable<Buffer>,
): Promise<StreamedUpload> {
  return streamBody<storageV1.UploadRequest, storageV1.UploadResponse__Output>(
    (callback) => storage.clientStream('Upload', { deadlineMs: UPLOAD_DEADLINE_MS }, callback),
    { header: { token } },
    (data) => ({ data }),
    body,
  );
}
