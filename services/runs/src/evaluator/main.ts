import { createLogger, startOpsServer } from '@policyhub/telemetry';
import { parseCommand } from './command-line.js';
import { type EvaluatorConfig, loadEvaluatorConfig } from './config.js';
import { EvaluatorWorker } from './worker.js';

/**
 * `npm run evaluator`: a policy evaluator worker. Claims queued policy checks from the runs
 * service (RUNS_ADDR) and runs EVALUATOR_COMMAND once per check (docs/evaluator.md).
 */
let config: EvaluatorConfig;
let command: string[];
try {
  config = loadEvaluatorConfig();
  command = parseCommand(config.EVALUATOR_COMMAND);
} catch (err) {
  console.error(`evaluator: ${(err as Error).message}`);
  process.exit(2);
}

const logger = createLogger('evaluator', config.LOG_LEVEL);
let stopping = false;
const worker = new EvaluatorWorker({
  runsAddress: config.RUNS_ADDR,
  token: config.EVALUATOR_TOKEN,
  command,
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
  { runs: config.RUNS_ADDR, evaluatorId: config.EVALUATOR_ID, command: command[0] },
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
