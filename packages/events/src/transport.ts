/** One event as it travels on the bus. */
export interface BusMessage {
  topic: string;
  /** Aggregate id; Kafka partitions by it so one aggregate's events stay ordered. */
  key: string;
  eventId: string;
  /** Protobuf-encoded payload (type given by the topic, see topics.ts). */
  payload: Buffer;
  /** Trace context (W3C traceparent/tracestate) and other string headers. */
  headers: Record<string, string>;
}

export type MessageHandler = (message: BusMessage) => Promise<void>;

export interface Subscription {
  close(): Promise<void>;
}

/**
 * The event-bus port. Implementations: in-process (embedded mode) and Kafka.
 *
 * Contract (tests/transport-contract.ts checks it for every implementation):
 * - publish resolves only once the transport has taken responsibility for every message;
 * - every message published after a subscription is ready reaches that group's handler at least
 *   once; messages with the same key reach it in publish order;
 * - a handler that throws gets the message again (the consumer runner bounds the retries);
 * - each consumer group receives every message once per delivery; groups are independent.
 */
export interface EventTransport {
  readonly kind: 'in-process' | 'kafka';
  publish(messages: BusMessage[]): Promise<void>;
  subscribe(group: string, topics: string[], handler: MessageHandler): Promise<Subscription>;
  /** Resolves when the bus can be reached now; rejects with the reason otherwise (readiness). */
  probe(): Promise<void>;
  close(): Promise<void>;
}
