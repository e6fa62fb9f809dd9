import { createLogger, startOpsServer } from '@policyhub/telemetry';
import { parseCommand } from './command-line.js';
import { type EvaluatorConfig, loadEvaluatorConfig } from './config.js';
import { describeEngines, detectEngines } from './engines.js';
import { EvaluatorWorker } from './worker.js';

/**
 * `npm run evaluator`: a policy evaluator worker. Claims queued policy checks from the runs
 * service (RUNS_ADDR) and evaluates each with EVALUATOR_COMMAND, or kind_a checks with the
 * Sentinel CLI (docs/evaluator.md, docs/policy-evaluation.md).
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
const engines = await detectEngines({ ...process.env, SENTINEL_BIN: config.SENTINEL_BIN }, command);

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
  logger,
});
worker.start();
if (config.OPS_PORT > 0) {
  await startOpsServer({ port: config.OPS_PORT, host: config.OPS_HOST, isReady: async () => !stopping });
}
logger.info(
  { runs: config.RUNS_ADDR, evaluatorId: config.EVALUATOR_ID, engines: describeEngines(engines) },
  'evaluator started',
);

const stop = async () => {
  if (stopping) process.exit(1); // a second signal: do not wait for the check in hand
  stopping = true;
  logger.info('stopping after the check in hand');
  await worker.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
