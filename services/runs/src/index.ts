export { startRuns, RUNS_SCHEMA, runsConfigShape, type RunsOptions } from './service.js';
export type { ObjectStore, PolicySetSource, WorkspaceDirectory, WorkspaceInfo } from './domain/ports.js';
export type { PolicySetSnapshot } from './domain/evaluation.js';
export { EvaluatorWorker, type WorkerOptions } from './evaluator/worker.js';
export { detectEngines, describeEngines, type EngineSetup } from './evaluator/engines.js';
export { parseCommand } from './evaluator/command-line.js';
