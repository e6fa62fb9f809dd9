export { createLogger, REDACTED_PATHS, type Logger } from './logger.js';
export { registry, metrics } from './metrics.js';
export {
  type DependencyCheck,
  type OpsServerOptions,
  type ReadinessReport,
  readinessReport,
  startOpsServer,
} from './ops-server.js';
export { redactPath } from './redact.js';
export { isOtlpConfigured, shutdownTracing, type Tracing } from './tracing-state.js';
export { tracingConfigShape } from './tracing-config.js';
