export * from './topics.js';
export type { BusMessage, EventTransport, MessageHandler, Subscription } from './transport.js';
export {
  InProcessTransport,
  NoConsumerInProcessError,
  TransportNotReadyError,
} from './in-process-transport.js';
export { KafkaTransport, type KafkaSasl, type KafkaTransportOptions } from './kafka-transport.js';
export { createTransport, describeTransport, type CreateTransportOptions } from './create-transport.js';
export { enqueueEvent, type EnqueuedEvent } from './outbox.js';
export { OutboxRelay, type OutboxHealth, type RelayOptions } from './relay.js';
export { startConsumer, type ConsumerOptions, type ConsumedEvent, type EventHandler } from './consumer.js';
export { eventMigrations } from './migrations.js';
export {
  DEFAULT_RETENTION,
  EventRetention,
  type EventTable,
  type RetentionOptions,
  type RetentionSettings,
} from './retention.js';
export {
  DeadLetterStore,
  type DeadLetter,
  type DeadLetterDetail,
  type ReplayOutcome,
} from './dead-letters.js';
export {
  type AuditAct,
  type AuditActor,
  type AuditMetaValue,
  auditActorOf,
  auditFields,
  auditMetaJson,
  auditRecordOf,
  changedAttributes,
  enqueueAudit,
  newAuditId,
} from './audit.js';
