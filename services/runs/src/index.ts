export {
  startRuns,
  RUNS_SCHEMA,
  runsConfigShape,
  runsProcessConfigShape,
  type RunsOptions,
} from './service.js';
export { listenForQueuedChecks, type QueuedChecksListener } from './db/queued-checks.js';
export type {
  ObjectStore,
  PolicySetSource,
  SetParameter,
  WorkspaceDirectory,
  WorkspaceInfo,
} from './domain/ports.js';
export type { PolicySetSnapshot } from './domain/evaluation.js';
