export { createLogger, REDACTED_PATHS, type Logger } from './logger.js';
export { registry, metrics } from './metrics.js';
export { startOpsServer, type OpsServerOptions } from './ops-server.js';
export { redactPath } from './redact.js';
export { isOtlpConfigured, shutdownTracing, type Tracing } from './tracing-state.js';
