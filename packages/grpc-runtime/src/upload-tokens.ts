import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { SigningKey } from './internal-auth.js';

/**
 * A key of INTERNAL_SIGNING_KEYS narrowed to one purpose: HMAC-SHA256(secret, purpose). What is
 * made with it for one purpose (an upload URL, a plan log URL) is worthless for every other
 * (a call assertion), though all come from the same configured keys.
 */
export const purposeKey = (key: SigningKey, purpose: string): Buffer =>
  createHmac('sha256', key.secret).update(purpose).digest();

/** Keeps upload URL tokens apart from everything else made with the same keys. */
const UPLOAD_PURPOSE = 'policyhub upload url v1';
const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Format byte and expiry (milliseconds, 8 bytes) before the session id. */
const HEADER_BYTES = 9;
/** Far longer than any token minted here; longer input is refused before any decoding. */
const MAX_TOKEN_LENGTH = 256;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+$/;

/** What an upload URL token names: storage's upload session, and when the token stops working. */
export interface UploadTokenClaims {
  sessionId: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/**
 * The capability of an upload URL (docs/adr/0059-sealed-upload-urls.md): storage's upload session
 * id and the session's expiry, sealed with AES-256-GCM under a key derived from
 * INTERNAL_SIGNING_KEYS for uploads only, with a random IV: `base64url(IV | ciphertext | tag)`.
 * Nothing secret is stored anywhere: the owner of a pending version (policy-sets, runs) keeps the
 * session id and mints a fresh token on every read; storage opens it and looks the session up by
 * id, where single use, expiry and the creator's right are checked as for any upload.
 *
 * Sealed rather than only signed: the token reveals nothing (no session id, no expiry), and no
 * part of it is fixed or sequential. The first key seals; every key opens (rotation).
 */
export class UploadTokens {
  private readonly keys: readonly Buffer[];

  constructor(keys: readonly SigningKey[]) {
    if (keys.length === 0) throw new Error('upload tokens need a signing key');
    this.keys = keys.map((k) => purposeKey(k, UPLOAD_PURPOSE));
  }

  mint(sessionId: string, expiresAt: string | number | Date): string {
    const expires = new Date(expiresAt).getTime();
    if (!sessionId || Number.isNaN(expires))
      throw new Error('an upload token needs a session id and an expiry');
    const plain = Buffer.alloc(HEADER_BYTES + Buffer.byteLength(sessionId));
    plain.writeUInt8(FORMAT, 0);
    plain.writeBigUInt64BE(BigInt(expires), 1);
    plain.write(sessionId, HEADER_BYTES, 'utf8');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0]!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(UPLOAD_PURPOSE));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * The claims of a token sealed with one of the keys; undefined for anything else (altered,
   * truncated, made with an unknown key, not a token). The expiry is returned, not checked: the
   * caller decides what a token past its expiry means.
   */
  open(token: string): UploadTokenClaims | undefined {
    if (token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) return undefined;
    const raw = Buffer.from(token, 'base64url');
    // One spelling per token: the decoder ignores stray trailing bits, this does not.
    if (raw.toString('base64url') !== token) return undefined;
    if (raw.length < IV_BYTES + HEADER_BYTES + 1 + TAG_BYTES) return undefined;
    const iv = raw.subarray(0, IV_BYTES);
    const sealed = raw.subarray(IV_BYTES, raw.length - TAG_BYTES);
    const tag = raw.subarray(raw.length - TAG_BYTES);
    for (const key of this.keys) {
      const plain = unseal(key, iv, sealed, tag);
      if (!plain || plain.readUInt8(0) !== FORMAT) continue;
      const expiresAt = Number(plain.readBigUInt64BE(1));
      const sessionId = plain.subarray(HEADER_BYTES).toString('utf8');
      return { sessionId, expiresAt };
    }
    return undefined;
  }
}

function unseal(key: Buffer, iv: Buffer, sealed: Buffer, tag: Buffer): Buffer | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(UPLOAD_PURPOSE));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]);
  } catch {
    return undefined;
  }
}
