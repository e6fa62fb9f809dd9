import { isIP } from 'node:net';
import { documented as doc, env, testOnly, z } from '@policyhub/config';
import { parseSigningKeys } from '@policyhub/grpc-runtime';
import { HOST_ENTRY } from './plugins/public-url.js';
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
  doc(
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
      }),
    'comma-separated addresses or CIDRs (or `loopback`, `linklocal`, `uniquelocal`) of reverse proxies in front; their `X-Forwarded-For` then names the client, so per-address limits see clients rather than the proxy',
    'unset → trust none',
  );

/** The rate limits, shared with `npm start`. */
export const rateLimitConfigShape = () => ({
  RATE_LIMIT_PER_SECOND: doc(
    env.int(30),
    'API requests per second per token (anonymous: per client address); `0` disables',
  ),
  AUTH_FAILURE_LIMIT: doc(
    env.int(20),
    'failed authentications per client address and window; once spent, tokens from that address that are not already authenticated get 429 without a lookup; `0` disables',
  ),
  AUTH_FAILURE_WINDOW_SECONDS: doc(env.int(60, 1), 'that window, in seconds', '`60` (at least `1`)'),
});

/**
 * Time limits of request bodies and open bodies per client address (docs/security.md, "The
 * edge"); read by the gateway and by `npm start`.
 */
export const bodyLimitsConfigShape = {
  BODY_TIMEOUT_SECONDS: doc(
    env.int(30, 1),
    "seconds from a request's headers to the last byte of its JSON body, with or without a token (408 after)",
    '`30` (at least `1`)',
  ),
  UPLOAD_BODY_TIMEOUT_SECONDS: doc(
    env.int(900, 1),
    'the same for bodies streamed to a service: archive uploads and plan JSON',
    '`900` (at least `1`)',
  ),
  OPEN_BODIES_PER_ADDRESS: doc(
    env.int(64),
    'request bodies one client address may have arriving at once (429 beyond); `0` disables',
  ),
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

/**
 * ALLOWED_HOSTS: host names (optionally `:port`) the API answers to, comma-separated; any other
 * Host is refused, and without PUBLIC_URL links are built from the request's (allowed) Host.
 */
export const allowedHostsEnv = () =>
  doc(
    z
      .string()
      .optional()
      .transform((v) =>
        v
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .refine((list) => list === undefined || (list.length > 0 && list.every((h) => HOST_ENTRY.test(h))), {
        message: 'must be comma-separated host names or addresses, each optionally with :port',
      }),
    "comma-separated host names or addresses, each optionally with `:port`, the API answers to; any other Host gets 400 `GATEWAY_HOST_NOT_ALLOWED`; without `PUBLIC_URL`, links then name the request's Host ([ADR 0041](adr/0041-absolute-urls-and-body-time-limits.md))",
    'unset → any Host (never used for links)',
  );

/** PUBLIC_URL: the base of every absolute URL the gateway writes (ADR 0041). */
export const publicUrlEnv = (extra = '') =>
  doc(
    env.optionalUrl(),
    `base URL for absolute links and upload URLs${extra}; set it behind a proxy or load balancer ([ADR 0041](adr/0041-absolute-urls-and-body-time-limits.md))`,
    'unset → an allowed Host (`ALLOWED_HOSTS`), else the address the request arrived on',
  );

/** Gateway environment (docs/configuration.md is generated from it). */
export const gatewayConfigShape = {
  PORT: doc(env.port(8080), 'HTTP port: `/api/v2/…` and upload URLs only'),
  HOST: doc(z.string().default('0.0.0.0'), 'HTTP bind address'),
  // The ops listener is off the public port, on loopback by default.
  OPS_PORT: doc(
    env.port(9464),
    'ops listener: `/healthz`, `/readyz` (ready while it reaches every backend; the body names each), `/metrics`',
  ),
  OPS_HOST: doc(
    z.string().default('127.0.0.1'),
    'interface of the ops listener (compose and Kubernetes set `0.0.0.0` for probes and scraping; keep it out of any public Service)',
  ),
  ADMIN_ORGS_ADDR: doc(
    env.address('127.0.0.1:50051'),
    'admin-orgs gRPC (`host:port`, or `dns:///host:port` for every address of a name)',
  ),
  POLICY_SETS_ADDR: doc(env.address('127.0.0.1:50052'), 'policy-sets gRPC'),
  RUNS_ADDR: doc(env.address('127.0.0.1:50053'), 'runs gRPC'),
  STORAGE_ADDR: doc(env.address('127.0.0.1:50054'), 'storage gRPC'),
  PUBLIC_URL: publicUrlEnv(),
  ALLOWED_HOSTS: allowedHostsEnv(),
  TRUST_PROXY: trustProxyEnv(),
  REDIS_URL: doc(
    env.optionalUrl(),
    'principal cache and rate limits shared by every gateway replica',
    'unset → in memory (per replica)',
  ),
  ...rateLimitConfigShape(),
  LOG_LEVEL: doc(env.logLevel(), '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`'),
  API_VOCABULARY: apiVocabulary(),
  REQUEST_BODY_LIMIT: doc(
    env.int(1024 * 1024, 1024),
    'JSON request body limit in bytes (policy code has its own 1 MiB limit; archive uploads are streamed)',
    '`1048576` (at least `1024`)',
  ),
  ...bodyLimitsConfigShape,
  VALIDATE_RESPONSES: validateResponsesEnv(),
  INTERNAL_SIGNING_KEYS: doc(
    env.parsed(
      parseSigningKeys,
      'is required: <id>:<secret> (32+ characters), shared by the gateway and every service',
    ),
    "the services' signing keys (the same value; [docs/security.md](security.md))",
  ),
};

/** `API_VOCABULARY`: `spec` (default) or `tfe`. */
export function apiVocabulary() {
  return doc(
    z.enum(VOCABULARY_PROFILES, { message: 'must be spec or tfe' }).default('spec'),
    "names in API responses: `spec` (the spec's: `kind_a`, `engine-build-worker-*`, …) or `tfe` (upstream's, for existing clients: [clients.md](clients.md)); input is read in either ([ADR 0020](adr/0020-vocabulary-profiles.md))",
  );
}

/** Test mode: the gateway checks its own answers (ADR 0031). Not an operator setting. */
export function validateResponsesEnv() {
  return testOnly(
    env.bool(false),
    "test mode, not for production: check every JSON response against its route's schema and answer 500 with a log line on a mismatch (the e2e suite runs with it; [ADR 0031](adr/0031-exact-response-schemas.md))",
  );
}
