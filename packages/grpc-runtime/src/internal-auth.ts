import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { type Principal, principalFromJson, principalToJson } from '@policyhub/permissions';

/**
 * Internal call authentication (docs/adr/0009-internal-call-authentication.md).
 *
 * Every gRPC call carries proof of who makes it:
 * - the gateway and the services sign an assertion with a shared HMAC key: "user U with these
 *   memberships" (a call on a user's behalf) or "service S" (an internal call without a user);
 * - evaluators and executors present their own bearer token, which runs accepts on the evaluator
 *   and executor APIs only.
 * A call without valid proof is refused with UNAUTHENTICATED, whoever can reach the port.
 */

/** Metadata key of a signed assertion: `<key id>.<base64url payload>.<base64url HMAC-SHA256>`. */
export const ASSERTION_METADATA_KEY = 'x-policyhub-assertion';
/** Metadata key of a worker's bearer token (`Bearer <token>`). */
export const WORKER_METADATA_KEY = 'authorization';

/** Who made a verified call. */
export type Caller =
  | { kind: 'user'; principal: Principal; service: string }
  | { kind: 'service'; service: string }
  | { kind: 'evaluator' }
  | { kind: 'executor' };
export type CallerKind = Caller['kind'];
export type WorkerRole = 'evaluator' | 'executor';

export interface SigningKey {
  id: string;
  secret: Buffer;
}

export const MIN_SECRET_LENGTH = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Parses `INTERNAL_SIGNING_KEYS`: comma-separated `<id>:<secret>` entries, secrets of at least 32
 * characters. The first key signs; every key verifies (rotation: docs/security.md).
 */
export function parseSigningKeys(value: string): SigningKey[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('must list at least one <id>:<secret> key');
  const ids = new Set<string>();
  return entries.map((entry) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    const secret = colon > 0 ? entry.slice(colon + 1) : '';
    if (!KEY_ID.test(id))
      throw new Error('each key must be <id>:<secret> with an id of letters, digits, - or _');
    if (secret.length < MIN_SECRET_LENGTH)
      throw new Error(`the secret of key "${id}" must be at least ${MIN_SECRET_LENGTH} characters`);
    if (ids.has(id)) throw new Error(`key id "${id}" appears twice`);
    ids.add(id);
    return { id, secret: Buffer.from(secret, 'utf8') };
  });
}

/** One random key, for embedded mode (every service runs in the process that generated it). */
export function generateSigningKeys(): SigningKey[] {
  return [{ id: 'embedded', secret: randomBytes(32) }];
}

/** Parses a comma-separated list of worker tokens (each at least 32 characters). */
export function parseWorkerTokens(value: string): string[] {
  const tokens = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  for (const t of tokens) {
    if (t.length < MIN_SECRET_LENGTH)
      throw new Error(`each token must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  return tokens;
}

/** Adds a caller's proof to the metadata of an outgoing call. */
export interface ClientCredential {
  apply(metadata: grpc.Metadata, principal: Principal | undefined): void;
  /**
   * On in-process calls (in-process.ts) the caller is handed over as a value, with the signing key
   * it would have signed with; the serving side checks that it holds that key. Only InternalAuth
   * credentials have this; a worker's token always travels over gRPC.
   */
  inProcess?: { key: SigningKey; callerFor(principal: Principal | undefined): Caller };
}

export interface InternalAuthOptions {
  /** The first key signs; all verify. */
  keys: readonly SigningKey[];
  /** Name of the signing process (`gateway`, `policy-sets`, …), carried in its assertions. */
  service: string;
  /** Tokens accepted from evaluators / executors (runs only). */
  workerTokens?: Partial<Record<WorkerRole, readonly string[]>>;
  /** Lifetime of an assertion; default 300 s. */
  ttlSeconds?: number;
  /** Seconds (unix). */
  now?: () => number;
}

/** Tolerated clock difference between the signing and the verifying host. */
const CLOCK_SKEW_SECONDS = 60;
const CACHE_LIMIT = 10_000;

interface AssertionPayload {
  v: 1;
  svc: string;
  exp: number;
  p?: unknown;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * Signs and verifies internal assertions for one process. Signing is cached per principal object
 * (the gateway's principal cache hands out the same object for its lifetime) and verification per
 * assertion string, so neither costs an HMAC on every call.
 */
export class InternalAuth {
  private readonly signingKey: SigningKey;
  private readonly verifyKeys: Map<string, Buffer>;
  private readonly ttl: number;
  private readonly now: () => number;
  private readonly workerHashes = new Map<string, WorkerRole>();
  private readonly signedPrincipals = new WeakMap<Principal, { value: string; exp: number }>();
  private serviceAssertion: { value: string; exp: number } | undefined;
  private readonly verified = new Map<string, { caller: Caller; exp: number }>();

  constructor(private readonly options: InternalAuthOptions) {
    const [first] = options.keys;
    if (!first) throw new Error('InternalAuth needs at least one signing key');
    this.signingKey = first;
    this.verifyKeys = new Map(options.keys.map((k) => [k.id, k.secret]));
    this.ttl = options.ttlSeconds ?? 300;
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
    for (const role of ['evaluator', 'executor'] as const) {
      for (const token of options.workerTokens?.[role] ?? []) this.workerHashes.set(sha256(token), role);
    }
    this.credential = {
      apply: (metadata, principal) => {
        metadata.set(ASSERTION_METADATA_KEY, principal ? this.signUser(principal) : this.signService());
      },
      inProcess: {
        key: first,
        callerFor: (principal) =>
          principal
            ? { kind: 'user', principal, service: options.service }
            : { kind: 'service', service: options.service },
      },
    };
  }

  /** The credential of this process for its outgoing calls (a user's or its own). */
  readonly credential: ClientCredential;

  /** Whether an in-process caller's signing key is one this process verifies (same id and secret). */
  holdsKey(key: SigningKey): boolean {
    const secret = this.verifyKeys.get(key.id);
    return (
      secret !== undefined &&
      (secret === key.secret || (secret.length === key.secret.length && timingSafeEqual(secret, key.secret)))
    );
  }

  signUser(principal: Principal): string {
    const now = this.now();
    const cached = this.signedPrincipals.get(principal);
    if (cached && cached.exp - now > this.ttl / 2) return cached.value;
    const exp = now + this.ttl;
    const value = this.sign({ v: 1, svc: this.options.service, exp, p: principalToJson(principal) });
    this.signedPrincipals.set(principal, { value, exp });
    return value;
  }

  signService(): string {
    const now = this.now();
    const cached = this.serviceAssertion;
    if (cached && cached.exp - now > this.ttl / 2) return cached.value;
    const exp = now + this.ttl;
    this.serviceAssertion = { value: this.sign({ v: 1, svc: this.options.service, exp }), exp };
    return this.serviceAssertion.value;
  }

  /** The verified caller of an incoming call, or undefined when it carries no valid proof. */
  authenticate(metadata: grpc.Metadata): Caller | undefined {
    const assertion = metadata.get(ASSERTION_METADATA_KEY)[0];
    if (typeof assertion === 'string') return this.verifyAssertion(assertion);
    const authorization = metadata.get(WORKER_METADATA_KEY)[0];
    if (typeof authorization === 'string' && authorization.startsWith('Bearer ')) {
      const role = this.workerHashes.get(sha256(authorization.slice('Bearer '.length).trim()));
      if (role) return { kind: role };
    }
    return undefined;
  }

  private sign(payload: AssertionPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${this.signingKey.id}.${body}.${this.mac(this.signingKey.secret, this.signingKey.id, body)}`;
  }

  private mac(secret: Buffer, keyId: string, body: string): string {
    return createHmac('sha256', secret).update(`policyhub-assertion-v1.${keyId}.${body}`).digest('base64url');
  }

  private verifyAssertion(assertion: string): Caller | undefined {
    const now = this.now();
    const hit = this.verified.get(assertion);
    if (hit) {
      if (hit.exp + CLOCK_SKEW_SECONDS >= now) return hit.caller;
      this.verified.delete(assertion);
      return undefined;
    }
    const [keyId, body, signature, extra] = assertion.split('.');
    if (!keyId || !body || !signature || extra !== undefined) return undefined;
    const secret = this.verifyKeys.get(keyId);
    if (!secret) return undefined;
    const expected = Buffer.from(this.mac(secret, keyId, body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    let payload: AssertionPayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as AssertionPayload;
    } catch {
      return undefined;
    }
    if (payload.v !== 1 || typeof payload.exp !== 'number' || typeof payload.svc !== 'string')
      return undefined;
    if (payload.exp + CLOCK_SKEW_SECONDS < now || payload.exp > now + this.ttl + CLOCK_SKEW_SECONDS)
      return undefined;
    let caller: Caller;
    if (payload.p === undefined) caller = { kind: 'service', service: payload.svc };
    else {
      const principal = principalFromJson(payload.p);
      if (!principal) return undefined;
      caller = { kind: 'user', principal, service: payload.svc };
    }
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.set(assertion, { caller, exp: payload.exp });
    return caller;
  }
}

/** The credential of an evaluator or executor process: its bearer token, on every call. */
export function workerCredential(token: string): ClientCredential {
  const value = `Bearer ${token}`;
  return {
    apply: (metadata) => {
      metadata.set(WORKER_METADATA_KEY, value);
    },
  };
}
