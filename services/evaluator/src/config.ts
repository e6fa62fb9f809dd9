import { hostname } from 'node:os';
import { env, loadConfig, z } from '@policyhub/config';
import { MIN_SECRET_LENGTH } from '@policyhub/grpc-runtime';

/** A variable whose blank value means unset. */
const optionalText = () =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined));

/** The longest lease runs grants (policy_evaluator.proto: lease_seconds is 1..3600). */
const MAX_LEASE_SECONDS = 3_600;

/** Environment of the evaluator (services/evaluator/README.md lists each). */
export const evaluatorConfigShape = {
  RUNS_ADDR: env.address('127.0.0.1:50053'),
  /** This evaluator's credential: one of the runs service's EVALUATOR_TOKENS. */
  EVALUATOR_TOKEN: z
    .string({ message: "is required: one of the runs service's EVALUATOR_TOKENS" })
    .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`),
  /**
   * A generic engine command for checks of every kind (a JSON array, or words separated by
   * spaces; quotes group). Unset: kind_a sets use the Sentinel CLI, kind_b sets the OPA CLI.
   */
  EVALUATOR_COMMAND: optionalText(),
  /** The Sentinel CLI (absolute path); unset: `sentinel` on PATH. */
  SENTINEL_BIN: optionalText(),
  /** The OPA CLI (absolute path, OPA 1.0 or later); unset: `opa` on PATH. */
  OPA_BIN: optionalText(),
  /** Where per-check working directories are created (default: the OS temp directory). */
  EVALUATOR_WORK_DIR: optionalText(),
  EVALUATOR_ID: z.string().default(`${hostname()}-${process.pid}`),
  EVALUATOR_POLL_INTERVAL_MS: env.int(1_000, 10),
  EVALUATOR_LEASE_SECONDS: z.coerce.number().int().min(1).max(MAX_LEASE_SECONDS).default(300),
  EVALUATOR_TIMEOUT_SECONDS: env.int(600, 1),
  LOG_LEVEL: env.logLevel(),
  /** `/healthz`, `/readyz` and `/metrics` for probes; 0 (default) serves none. */
  OPS_PORT: env.port(0),
  /** Interface of the ops server; loopback unless set (containers set 0.0.0.0). */
  OPS_HOST: z.string().default('127.0.0.1'),
};

export type EvaluatorConfig = ReturnType<typeof loadEvaluatorConfig>;

export const loadEvaluatorConfig = (environment: Record<string, string | undefined> = process.env) =>
  loadConfig(evaluatorConfigShape, environment);
