import { createLogger, startOpsServer } from '@policyhub/telemetry';
import { type EvaluatorConfig, loadEvaluatorConfig } from './config.js';
import { parseCommand } from './engines/command/command-line.js';
import { detectEngines } from './engines/registry.js';
import { EvaluatorWorker } from './worker.js';

/**
 * The evaluator's composition root (`npm run evaluator`, the evaluator image): reads the config,
 * looks the engines up once (EVALUATOR_COMMAND for every kind, else the Sentinel CLI for kind_a
 * and the OPA CLI for kind_b), and claims policy checks from runs (RUNS_ADDR) until SIGTERM
 * (docs/evaluator.md, docs/policy-evaluation.md).
 */
let config: EvaluatorConfig;
let command: string[] | undefined;
try {
  config = loadEvaluatorConfig();
  command = config.EVALUATOR_COMMAND ? parseCommand(config.EVALUATOR_COMMAND) : undefined;
} catch (err) {
  console.error(`evaluator: ${(err as Error).message}`);
  process.exit(2);
}
const engines = await detectEngines(
  { ...process.env, SENTINEL_BIN: config.SENTINEL_BIN, OPA_BIN: config.OPA_BIN },
  command,
);

const logger = createLogger('evaluator', config.LOG_LEVEL);
let stopping = false;
const worker = new EvaluatorWorker({
  runsAddress: config.RUNS_ADDR,
  token: config.EVALUATOR_TOKEN,
  engines,
  workRoot: config.EVALUATOR_WORK_DIR,
  evaluatorId: config.EVALUATOR_ID,
  pollIntervalMs: config.EVALUATOR_POLL_INTERVAL_MS,
  leaseSeconds: config.EVALUATOR_LEASE_SECONDS,
  timeoutMs: config.EVALUATOR_TIMEOUT_SECONDS * 1000,
  concurrency: config.EVALUATOR_CONCURRENCY,
  logger,
});
worker.start();
if (config.OPS_PORT > 0) {
  await startOpsServer({ port: config.OPS_PORT, host: config.OPS_HOST, isReady: async () => !stopping });
}
logger.info(
  {
    runs: config.RUNS_ADDR,
    evaluatorId: config.EVALUATOR_ID,
    concurrency: config.EVALUATOR_CONCURRENCY,
    engines: engines.describe(),
  },
  'evaluator started',
);

const stop = async () => {
  if (stopping) process.exit(1); // a second signal: do not wait for the check in hand
  stopping = true;
  logger.info('stopping after the checks in hand');
  await worker.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
