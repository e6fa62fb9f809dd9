export * from './topics.js';
export type { BusMessage, EventTransport, MessageHandler, Subscription } from './transport.js';
export { InProcessTransport, TransportNotReadyError } from './in-process-transport.js';
export { KafkaTransport, type KafkaTransportOptions } from './kafka-transport.js';
export { createTransport, type CreateTransportOptions } from './create-transport.js';
export { enqueueEvent, type EnqueuedEvent } from './outbox.js';
export { OutboxRelay, type RelayOptions } from './relay.js';
export { startConsumer, type ConsumerOptions, type ConsumedEvent, type EventHandler } from './consumer.js';
export { eventMigrations } from './migrations.js';
