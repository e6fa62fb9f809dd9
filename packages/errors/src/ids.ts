import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `<prefix>-` + 16 random base62 characters (~95 bits), e.g. `polset-3kQ9…`. */
export function newId(prefix: string): string {
  const bytes = randomBytes(32);
  let out = '';
  for (let i = 0; out.length < 16 && i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62];
  }
  return `${prefix}-${out.padEnd(16, '0')}`;
}
