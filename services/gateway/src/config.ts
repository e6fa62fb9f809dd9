import { env, z } from '@policyhub/config';
import { parseSigningKeys } from '@policyhub/grpc-runtime';

/** Gateway environment (README "Configuration" lists each). */
export const gatewayConfigShape = {
  PORT: env.port(8080),
  HOST: z.string().default('0.0.0.0'),
  ADMIN_ORGS_ADDR: env.address('127.0.0.1:50051'),
  POLICY_SETS_ADDR: env.address('127.0.0.1:50052'),
  RUNS_ADDR: env.address('127.0.0.1:50053'),
  STORAGE_ADDR: env.address('127.0.0.1:50054'),
  PUBLIC_URL: env.optionalUrl(),
  REDIS_URL: env.optionalUrl(),
  /** Requests per second per token (anonymous: per client address); 0 disables the limit. */
  RATE_LIMIT_PER_SECOND: env.int(30),
  LOG_LEVEL: env.logLevel(),
  REQUEST_BODY_LIMIT: env.int(1024 * 1024, 1024),
  /** Shared HMAC keys of internal calls (`<id>:<secret>,…`; the first signs). docs/security.md */
  INTERNAL_SIGNING_KEYS: env.parsed(
    parseSigningKeys,
    'is required: <id>:<secret> (32+ characters), shared by the gateway and every service',
  ),
};
