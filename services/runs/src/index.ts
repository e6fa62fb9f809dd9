export {
  startRuns,
  RUNS_SCHEMA,
  runsConfigShape,
  runsProcessConfigShape,
  type RunsOptions,
} from './service.js';
export type {
  ObjectStore,
  PolicySetSource,
  SetParameter,
  WorkspaceDirectory,
  WorkspaceInfo,
} from './domain/ports.js';
export type { PolicySetSnapshot } from './domain/evaluation.js';
