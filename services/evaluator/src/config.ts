import { availableParallelism, hostname } from 'node:os';
import { documented as doc, env, loadConfig, z } from '@policyhub/config';
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

/** The engines, shared with `npm start`'s built-in evaluator. */
export const engineConfigShape = () => ({
  EVALUATOR_COMMAND: doc(
    optionalText(),
    'a generic engine executable and its arguments for checks of every kind: a JSON array, or words separated by spaces (quotes group); never run through a shell ([docs/evaluator.md](evaluator.md)). Unset: `kind_a` checks run on the Sentinel CLI, `kind_b` checks on the OPA CLI',
  ),
  SENTINEL_BIN: doc(
    optionalText(),
    'absolute path of the Sentinel CLI, the `kind_a` engine; without one, such checks end `errored` saying how to install it',
    'unset: `sentinel` on `PATH`',
  ),
  OPA_BIN: doc(
    optionalText(),
    'absolute path of the OPA CLI (1.0 or later), the `kind_b` engine',
    'unset: `opa` on `PATH`',
  ),
  EVALUATOR_CONCURRENCY: doc(
    env.int(availableParallelism(), 1),
    'checks (engines) evaluated at once, fairly across organizations ([docs/evaluator.md](evaluator.md#concurrency)); in a container with a CPU limit, set it to the limit',
    'the cores Node may use (`os.availableParallelism()`), at least `1`',
  ),
});

/** Environment of the evaluator (docs/configuration.md is generated from it). */
export const evaluatorConfigShape = {
  RUNS_ADDR: doc(env.address('127.0.0.1:50053'), "the runs service's gRPC address (`host:port`)"),
  EVALUATOR_TOKEN: doc(
    z
      .string({ message: "is required: one of the runs service's EVALUATOR_TOKENS" })
      .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`),
    "this evaluator's credential, one of runs' `EVALUATOR_TOKENS` (`npm start`: `DATA_DIR/evaluator-token`)",
  ),
  ...engineConfigShape(),
  EVALUATOR_WORK_DIR: doc(
    optionalText(),
    'where a private (0700) directory per check holds the plan and archives; removed after the check',
    'the OS temp directory',
  ),
  EVALUATOR_ID: doc(
    z.string().default(`${hostname()}-${process.pid}`),
    'who holds a lease, for operators',
    '`<hostname>-<pid>`',
  ),
  EVALUATOR_POLL_INTERVAL_MS: doc(
    env.int(1_000, 10),
    'pause between claims while nothing is queued',
    '`1000` (at least `10`)',
  ),
  EVALUATOR_LEASE_SECONDS: doc(
    z.coerce.number().int().min(1).max(MAX_LEASE_SECONDS).default(300),
    'lease length; extended while the engine runs',
    '`300` (1..3600)',
  ),
  EVALUATOR_TIMEOUT_SECONDS: doc(
    env.int(600, 1),
    'the engine is killed after this long and the check reported `errored`',
  ),
  LOG_LEVEL: doc(env.logLevel(), '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`'),
  OPS_PORT: doc(env.port(0), 'port for `/healthz`, `/readyz` and `/metrics`; `0` serves none'),
  OPS_HOST: doc(z.string().default('127.0.0.1'), 'interface of that ops server (containers set `0.0.0.0`)'),
};

export type EvaluatorConfig = ReturnType<typeof loadEvaluatorConfig>;

export const loadEvaluatorConfig = (environment: Record<string, string | undefined> = process.env) =>
  loadConfig(evaluatorConfigShape, environment);
