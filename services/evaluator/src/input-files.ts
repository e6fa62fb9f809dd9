import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { runsV1 } from '@policyhub/contracts';

type Reference = runsV1.ObjectReference__Output;

/**
 * Copies one object of a check's input (read through runs' ReadPolicyCheckObject stream) to a
 * file (mode 0600, never an existing one), checking that it is exactly the size and SHA-256 the
 * input named: a truncated or altered plan must not be evaluated.
 */
export async function downloadObject(
  chunks: AsyncIterable<{ data: Buffer }>,
  reference: Reference,
  file: string,
): Promise<void> {
  const expectedSize = reference.sizeBytes;
  const hash = createHash('sha256');
  let size = 0;
  async function* verified() {
    for await (const chunk of chunks) {
      size += chunk.data.length;
      if (size > expectedSize)
        throw new Error(`${reference.key} is larger than the ${expectedSize} bytes announced`);
      hash.update(chunk.data);
      yield chunk.data;
    }
  }
  await pipeline(verified, createWriteStream(file, { mode: 0o600, flags: 'wx' }));
  if (size !== expectedSize) throw new Error(`${reference.key} ended after ${size} of ${expectedSize} bytes`);
  const sha256 = hash.digest('hex');
  if (reference.sha256 && sha256 !== reference.sha256.toLowerCase()) {
    throw new Error(`${reference.key} does not match its SHA-256 (${sha256} instead of ${reference.sha256})`);
  }
}
