import { createHmac, timingSafeEqual } from 'node:crypto';

/** A key of INTERNAL_SIGNING_KEYS (the first signs, every one verifies). */
export interface LogTokenKey {
  id: string;
  secret: Buffer;
}

/** Tokens are handed out per window and live until the end of the next one: 30 to 60 minutes. */
export const LOG_TOKEN_WINDOW_MS = 30 * 60 * 1000;

/** Keeps log tokens apart from everything else signed with the same keys (call assertions). */
const PURPOSE = 'policyhub plan log read v1';

/**
 * The capability of a plan's log URL: `<key id>.<payload>.<HMAC>`, the payload naming the plan,
 * the subject it was handed to (a user, team or organization id: whose right it stands for) and
 * when it expires. Nothing is stored: the signature is the proof, and the reader's right is
 * checked again when the URL is used. The expiry is the end of the window after the current
 * one, so the same caller reading the same plan gets the same URL for a while (a stable document).
 */
export class PlanLogTokens {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly signing: { id: string; key: Buffer };

  constructor(
    keys: readonly LogTokenKey[],
    private readonly now: () => number = Date.now,
  ) {
    if (keys.length === 0) throw new Error('plan log tokens need a signing key');
    const derived = keys.map((k) => ({
      id: k.id,
      key: createHmac('sha256', k.secret).update(PURPOSE).digest(),
    }));
    this.keys = new Map(derived.map((k) => [k.id, k.key]));
    this.signing = derived[0]!;
  }

  mint(planId: string, subjectId: string): string {
    const window = Math.floor(this.now() / LOG_TOKEN_WINDOW_MS);
    const expiresAt = (window + 2) * LOG_TOKEN_WINDOW_MS;
    const payload = Buffer.from(JSON.stringify({ p: planId, s: subjectId, e: expiresAt })).toString(
      'base64url',
    );
    return `${this.signing.id}.${payload}.${mac(this.signing.key, payload)}`;
  }

  /** The plan and subject of a genuine, unexpired token; undefined for anything else. */
  verify(token: string): { planId: string; subjectId: string } | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [id, payload, signature] = parts as [string, string, string];
    const key = this.keys.get(id);
    if (!key) return undefined;
    const expected = Buffer.from(mac(key, payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    const { p, s, e } = (claims ?? {}) as { p?: unknown; s?: unknown; e?: unknown };
    if (typeof p !== 'string' || typeof s !== 'string' || typeof e !== 'number') return undefined;
    if (this.now() >= e) return undefined;
    return { planId: p, subjectId: s };
  }
}

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
