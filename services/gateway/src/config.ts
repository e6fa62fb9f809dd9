import { isIP } from 'node:net';
import { env, z } from '@policyhub/config';
import { parseSigningKeys } from '@policyhub/grpc-runtime';
import { VOCABULARY_PROFILES } from './vocabulary.js';

/** proxy-addr's names for address ranges, accepted in TRUST_PROXY. */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (PROXY_RANGES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

/**
 * TRUST_PROXY: the proxies in front of the gateway (addresses, CIDRs, or `loopback`, `linklocal`,
 * `uniquelocal`), comma-separated. Requests from them are attributed to the client their
 * `X-Forwarded-For` names, so per-address limits see clients, not the proxy. Unset: trust none.
 */
export const trustProxyEnv = () =>
  z
    .string()
    .optional()
    .transform((v) =>
      v
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((list) => list === undefined || (list.length > 0 && list.every(isAddressOrRange)), {
      message: 'must be comma-separated IP addresses or CIDRs (or loopback, linklocal, uniquelocal)',
    });

/**
 * Time limits of request bodies and open bodies per client address (docs/security.md, "The
 * edge"); read by the gateway and by `npm start`.
 */
export const bodyLimitsConfigShape = {
  /** Seconds from a request's headers to the last byte of its JSON body, with or without a token. */
  BODY_TIMEOUT_SECONDS: env.int(30, 1),
  /** The same for bodies streamed to a service: archive uploads and plan JSON. */
  UPLOAD_BODY_TIMEOUT_SECONDS: env.int(900, 1),
  /** Request bodies one client address may have arriving at once (429 beyond); 0 disables. */
  OPEN_BODIES_PER_ADDRESS: env.int(64),
};

/** The gateway's body limits from those variables. */
export const bodyLimitsOf = (config: {
  BODY_TIMEOUT_SECONDS: number;
  UPLOAD_BODY_TIMEOUT_SECONDS: number;
  OPEN_BODIES_PER_ADDRESS: number;
}) => ({
  bodyTimeoutMs: config.BODY_TIMEOUT_SECONDS * 1000,
  streamedBodyTimeoutMs: config.UPLOAD_BODY_TIMEOUT_SECONDS * 1000,
  openBodiesPerAddress: config.OPEN_BODIES_PER_ADDRESS,
});

/** Gateway environment (README "Configuration" lists each). */
export const gatewayConfigShape = {
  PORT: env.port(8080),
  HOST: z.string().default('0.0.0.0'),
  /** The ops listener (/healthz, /readyz, /metrics); off the public port, on loopback by default. */
  OPS_PORT: env.port(9464),
  OPS_HOST: z.string().default('127.0.0.1'),
  ADMIN_ORGS_ADDR: env.address('127.0.0.1:50051'),
  POLICY_SETS_ADDR: env.address('127.0.0.1:50052'),
  RUNS_ADDR: env.address('127.0.0.1:50053'),
  STORAGE_ADDR: env.address('127.0.0.1:50054'),
  PUBLIC_URL: env.optionalUrl(),
  TRUST_PROXY: trustProxyEnv(),
  REDIS_URL: env.optionalUrl(),
  /** Requests per second per token (anonymous: per client address); 0 disables the limit. */
  RATE_LIMIT_PER_SECOND: env.int(30),
  /** Failed authentications per client address and window before unknown tokens get 429; 0 off. */
  AUTH_FAILURE_LIMIT: env.int(20),
  AUTH_FAILURE_WINDOW_SECONDS: env.int(60, 1),
  LOG_LEVEL: env.logLevel(),
  /** Wire vocabulary of responses: the spec's names, or upstream's for existing clients (ADR 0020). */
  API_VOCABULARY: apiVocabulary(),
  REQUEST_BODY_LIMIT: env.int(1024 * 1024, 1024),
  ...bodyLimitsConfigShape,
  /** Check every JSON response against its route's schema, 500 on a mismatch (tests; ADR 0031). */
  VALIDATE_RESPONSES: env.bool(false),
  /** Shared HMAC keys of internal calls (`<id>:<secret>,…`; the first signs). docs/security.md */
  INTERNAL_SIGNING_KEYS: env.parsed(
    parseSigningKeys,
    'is required: <id>:<secret> (32+ characters), shared by the gateway and every service',
  ),
};

/** `API_VOCABULARY`: `spec` (default) or `tfe`. */
export function apiVocabulary() {
  return z.enum(VOCABULARY_PROFILES, { message: 'must be spec or tfe' }).default('spec');
}
