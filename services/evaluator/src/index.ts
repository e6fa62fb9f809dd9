export { EvaluatorWorker, type WorkerOptions } from './worker.js';
export { detectEngines, describeEngines, type EngineSetup } from './engines.js';
export { parseCommand } from './command-line.js';
