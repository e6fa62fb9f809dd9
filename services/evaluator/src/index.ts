export { EvaluatorWorker, type WorkerOptions } from './worker.js';
export { detectEngines, EngineRegistry } from './engines/registry.js';
export { parseCommand } from './engines/command/command-line.js';
export type {
  EngineInput,
  EngineRun,
  EnforcementLevel,
  IndividualPolicy,
  PolicyEngine,
  PolicyKind,
  PolicyOutcome,
  PolicyResult,
  PreparedArchive,
  PreparedPolicySet,
  RunFacts,
} from './engines/engine.js';
export { engineConfigShape, evaluatorConfigShape } from './config.js';
