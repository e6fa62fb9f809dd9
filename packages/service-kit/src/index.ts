export {
  startGrpcService,
  type DatabaseTimeouts,
  type GrpcServiceOptions,
  type RunningService,
  type ServiceDeps,
} from './grpc-service.js';
export { serviceConfigShape, runServiceMain } from './main.js';
export {
  kafkaClientSettings,
  kafkaConfigShape,
  readinessConfigShape,
  readinessSettings,
  retentionConfigShape,
  retentionSettings,
} from './event-config.js';
export { DEFAULT_READINESS, type ReadinessSettings, serviceReadiness } from './readiness.js';
export { runDeadLettersCommand, USAGE as DEAD_LETTERS_USAGE } from './dead-letters-command.js';
export { addHealthService, type HealthService, LIVENESS_SERVICE } from './health.js';
export { databaseTimeoutsConfigShape, databaseTimeoutsOf } from './database-config.js';
