export {
  startSystem,
  type SystemOptions,
  type RunningSystem,
  type EmbeddedEvaluatorOptions,
} from './system.js';
