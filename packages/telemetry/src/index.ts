export { createLogger, REDACTED_PATHS, type Logger } from './logger.js';
export { registry, metrics } from './metrics.js';
export { startOpsServer, type OpsServerOptions } from './ops-server.js';
