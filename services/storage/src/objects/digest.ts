import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** Counts and hashes what goes through a writer. */
export class Digest {
  private readonly hash = createHash('sha256');
  private hex: string | undefined;
  sizeBytes = 0;

  update(chunk: Buffer): void {
    this.hash.update(chunk);
    this.sizeBytes += chunk.length;
  }

  /** The SHA-256 (hex) of everything so far; call once the last chunk is in. */
  digest(): string {
    this.hex ??= this.hash.digest('hex');
    return this.hex;
  }
}

/** Writes all of `chunk` to `handle` (short writes continue) and counts and hashes it in `digest`. */
export async function writeHashed(handle: FileHandle, digest: Digest, chunk: Buffer): Promise<void> {
  digest.update(chunk);
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset);
    offset += bytesWritten;
  }
}
