import { createHash } from 'node:crypto';

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
