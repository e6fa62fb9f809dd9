import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Keys that seal sensitive policy set parameters (AES-256-GCM, docs/security.md). The first key
 * seals; every key opens what it sealed, so a rotation prepends a new key and keeps the old ones
 * until policy-sets has re-sealed every value at its next start (see ParameterSealer).
 */
export interface ParameterKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Reads `<id>:<32 bytes in base64 or base64url>[,<id>:<key>…]`. Throws naming what is wrong,
 * never echoing key material.
 */
export function parseParameterKeys(value: string): ParameterKey[] {
  const keys: ParameterKey[] = [];
  const seen = new Set<string>();
  for (const [i, entry] of value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .entries()) {
    const at = entry.indexOf(':');
    const id = at > 0 ? entry.slice(0, at) : '';
    if (!KEY_ID.test(id))
      throw new Error(`key ${i + 1}: expected <id>:<base64 key>, the id of letters, digits, . _ -`);
    if (seen.has(id)) throw new Error(`key ${i + 1}: the id ${id} is used twice`);
    // Node's base64 decoder reads the base64url alphabet too.
    const key = Buffer.from(entry.slice(at + 1), 'base64');
    if (key.length !== 32) throw new Error(`key ${id}: must be 32 bytes (base64 of 32 random bytes)`);
    seen.add(id);
    keys.push({ id, key });
  }
  if (keys.length === 0) throw new Error('at least one key is required');
  return keys;
}

/** A new key entry `<id>:<base64url>` for a data directory (npm start). */
export const generateParameterKey = (id = 'local'): string =>
  `${id}:${randomBytes(32).toString('base64url')}`;

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals and opens values. The parameter's id is the additional authenticated data: a sealed
 * value copied to another row does not open.
 */
export class ParameterSealer {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: readonly ParameterKey[]) {
    if (keys.length === 0) throw new Error('at least one key is required');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The id of the key that seals. */
  get currentKeyId(): string {
    return this.keys[0]!.id;
  }

  seal(parameterId: string, value: string): string {
    const { id, key } = this.keys[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(parameterId, 'utf8'));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return `${id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** Throws without the value when the key is unknown or the data was altered. */
  open(parameterId: string, sealed: string): string {
    const at = sealed.indexOf(':');
    const key = this.byId.get(sealed.slice(0, at));
    if (at <= 0 || !key)
      throw new Error(`sealed with key ${sealed.slice(0, Math.max(at, 0))}, which is not configured`);
    const raw = Buffer.from(sealed.slice(at + 1), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(parameterId, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }

  /** Whether a sealed value uses another key than the current one. */
  isStale(sealed: string): boolean {
    return !sealed.startsWith(`${this.currentKeyId}:`);
  }
}
