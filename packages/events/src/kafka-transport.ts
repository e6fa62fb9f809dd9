import type { ConnectionOptions } from 'node:tls';
import type { Logger } from '@policyhub/telemetry';
import {
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  Kafka,
  type KafkaMessage,
  type logCreator,
  logLevel,
  type Message,
  Partitioners,
  type Producer,
  type SASLOptions,
  type TopicMessages,
} from 'kafkajs';
import type { BusMessage, EventTransport, MessageHandler, Subscription } from './transport.js';

export interface KafkaTransportOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /**
   * How long the group coordinator waits for a silent consumer before it gives the consumer's
   * partitions to others (kafkajs default 30 s). A crashed process's successor also waits this
   * long to join its group, so it bounds failover time.
   */
  sessionTimeoutMs?: number;
  /**
   * Idempotent producer (default true): the broker drops a batch a retry sent twice and keeps
   * same-partition order. Off only against brokers without it (librdkafka's mock cluster in tests).
   */
  idempotent?: boolean;
  /** TLS to the brokers: true (system CAs) or tls options (e.g. `{ ca: [pem] }`). */
  ssl?: boolean | ConnectionOptions;
  /** SASL authentication (managed Kafka): plain, scram-sha-256 or scram-sha-512. */
  sasl?: KafkaSasl;
}

export interface KafkaSasl {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

/** kafkajs' default session timeout; heartbeats go out at most every 3 s, and at least thrice per session. */
const DEFAULT_SESSION_TIMEOUT_MS = 30_000;
const MAX_HEARTBEAT_INTERVAL_MS = 3_000;

/**
 * Fetch long-poll bound; it also bounds how long resume and disconnect take. 50 ms, not Kafka's
 * 500 ms default: a broker that does not answer a waiting fetch when data arrives (librdkafka's
 * mock cluster) otherwise adds up to the whole wait to every event's delivery (ADR 0034, lowered
 * from 100 ms by ADR 0037). A real broker answers as soon as data arrives; there the cost is more
 * idle fetches (20/s per group).
 */
const FETCH_MAX_WAIT_MS = 50;
/** How long a readiness probe waits for the cluster's metadata; a result is reused this long. */
const PROBE_TIMEOUT_MS = 3_000;
const PROBE_CACHE_MS = 5_000;
/**
 * Producer retries before a send fails back to the outbox relay (which tries again a second
 * later, so nothing is lost): about 30 s. kafkajs' idempotent default is to retry forever, which
 * would hold the relay's transaction open through a whole broker outage.
 */
const PRODUCER_RETRY = { retries: 8, initialRetryTime: 300, maxRetryTime: 5_000 };
/** Backoff before a message whose handler threw is delivered again: doubles per failure, capped. */
const REDELIVERY_FIRST_DELAY_MS = 500;
const REDELIVERY_MAX_DELAY_MS = 30_000;

interface GroupConsumer {
  consumer: Consumer;
  handler: MessageHandler;
  /** Consecutive handler failures per `topic:partition`, for the redelivery backoff. */
  failures: Map<string, number>;
  resumeTimers: Set<NodeJS.Timeout>;
  stopping?: Promise<void>;
}

/**
 * The event bus on Kafka (kafkajs). One topic per event type, message key = aggregate id (so one
 * aggregate's events share a partition and stay ordered), headers = the message headers plus
 * `event-id`. One kafkajs consumer per group; an offset is committed only after the handler
 * resolved. A handler that throws is an infrastructure failure: its partition is paused, and
 * the same message is delivered again after a backoff, ahead of everything behind it.
 * See docs/adr/0005-kafka-transport.md.
 */
export class KafkaTransport implements EventTransport {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly logger: Logger;
  private readonly producer: Producer;
  private producerConnected: Promise<void> | undefined;
  private readonly groups = new Map<string, GroupConsumer>();
  private closing: Promise<void> | undefined;
  private readonly sessionTimeoutMs: number;
  private readonly probeKafka: Kafka;
  private admin: Admin | undefined;
  private lastProbe: { at: number; result: Promise<void> } | undefined;

  constructor(options: KafkaTransportOptions) {
    this.logger = options.logger;
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    const client = {
      clientId: options.clientId,
      brokers: options.brokers,
      ...(options.ssl ? { ssl: options.ssl } : {}),
      ...(options.sasl ? { sasl: options.sasl as SASLOptions } : {}),
      logLevel: logLevel.WARN,
      logCreator: toPino(options.logger),
    };
    this.kafka = new Kafka(client);
    // Probes fail fast and quietly: no reconnect loop left behind, no error line per probe.
    this.probeKafka = new Kafka({ ...client, retry: { retries: 0 }, logLevel: logLevel.NOTHING });
    this.producer = this.kafka.producer({
      // Idempotent unless the broker lacks it (the test broker). One request in flight keeps a
      // retried send from overtaking the next one (same-key order) either way.
      idempotent: options.idempotent ?? true,
      maxInFlightRequests: 1,
      retry: PRODUCER_RETRY,
      allowAutoTopicCreation: true,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  /**
   * Asks the cluster for its metadata (brokers and controller), with a short timeout; the
   * answer is reused for a few seconds so frequent readiness probes cost one request.
   */
  probe(): Promise<void> {
    if (this.closing) return Promise.reject(new Error('kafka transport is closed'));
    const now = Date.now();
    if (this.lastProbe && now - this.lastProbe.at < PROBE_CACHE_MS) return this.lastProbe.result;
    const result = this.describeCluster();
    result.catch(() => {});
    this.lastProbe = { at: now, result };
    return result;
  }

  private async describeCluster(): Promise<void> {
    this.admin ??= this.probeKafka.admin();
    const admin = this.admin;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from the Kafka brokers within ${PROBE_TIMEOUT_MS} ms`)),
        PROBE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([
        (async () => {
          await admin.connect();
          await admin.describeCluster();
        })(),
        timeout,
      ]);
    } catch (err) {
      // A fresh client next time: a failed connect can leave this one half-open.
      this.admin = undefined;
      await admin.disconnect().catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async publish(messages: BusMessage[]): Promise<void> {
    this.assertOpen();
    if (messages.length === 0) return;
    await this.connectProducer();
    await this.producer.sendBatch({ acks: -1, topicMessages: byTopic(messages) });
  }

  /**
   * Resolves once the group has joined and its consumer runs. A group without committed offsets
   * starts at the beginning of each topic (`fromBeginning: true`): starting at "latest" would race
   * with messages published right after subscribe resolved, and consumers are idempotent anyway.
   */
  async subscribe(group: string, topics: string[], handler: MessageHandler): Promise<Subscription> {
    this.assertOpen();
    if (this.groups.has(group)) throw new Error(`consumer group ${group} is already subscribed`);
    const consumer = this.kafka.consumer({
      groupId: group,
      allowAutoTopicCreation: true,
      maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
      sessionTimeout: this.sessionTimeoutMs,
      heartbeatInterval: Math.min(MAX_HEARTBEAT_INTERVAL_MS, Math.floor(this.sessionTimeoutMs / 3)),
      retry: { restartOnFailure: async () => !this.closing },
    });
    const state: GroupConsumer = { consumer, handler, failures: new Map(), resumeTimers: new Set() };
    this.groups.set(group, state);
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      const fields = { err: payload.error, group, restart: payload.restart };
      this.logger.error(
        fields,
        payload.restart ? 'kafka consumer crashed; restarting' : 'kafka consumer stopped',
      );
    });
    try {
      const joined = waitForJoin(consumer);
      joined.catch(() => {}); // awaited below; avoids an unhandled rejection if connect fails first
      await consumer.connect();
      await consumer.subscribe({ topics, fromBeginning: true });
      await consumer.run({
        eachBatchAutoResolve: false,
        eachBatch: (payload) => this.consume(group, state, payload),
      });
      await joined;
    } catch (err) {
      await this.stopGroup(group).catch(() => {});
      throw err;
    }
    return { close: () => this.stopGroup(group) };
  }

  private async consume(group: string, state: GroupConsumer, payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const { topic, partition } = batch;
    const partitionKey = `${topic}:${partition}`;
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) return;
      try {
        await state.handler(toBusMessage(topic, message));
      } catch (err) {
        // Not resolved, so the next fetch of this partition starts at this message again.
        this.redeliverLater(group, state, topic, partition, message.offset, err);
        return;
      }
      state.failures.delete(partitionKey);
      resolveOffset(message.offset);
      await heartbeat();
    }
  }

  private redeliverLater(
    group: string,
    state: GroupConsumer,
    topic: string,
    partition: number,
    offset: string,
    err: unknown,
  ): void {
    const partitionKey = `${topic}:${partition}`;
    const failures = (state.failures.get(partitionKey) ?? 0) + 1;
    state.failures.set(partitionKey, failures);
    const delayMs = Math.min(REDELIVERY_FIRST_DELAY_MS * 2 ** (failures - 1), REDELIVERY_MAX_DELAY_MS);
    this.logger.warn(
      { err, group, topic, partition, offset, failures, delayMs },
      'event handler failed; message will be delivered again',
    );
    const partitions = [{ topic, partitions: [partition] }];
    state.consumer.pause(partitions);
    const timer = setTimeout(() => {
      state.resumeTimers.delete(timer);
      state.consumer.resume(partitions);
    }, delayMs);
    state.resumeTimers.add(timer);
  }

  private stopGroup(group: string): Promise<void> {
    const state = this.groups.get(group);
    if (!state) return Promise.resolve();
    state.stopping ??= (async () => {
      for (const timer of state.resumeTimers) clearTimeout(timer);
      try {
        await state.consumer.disconnect();
      } finally {
        if (this.groups.get(group) === state) this.groups.delete(group);
      }
    })();
    return state.stopping;
  }

  /** Leaves every group (so the others rebalance at once) and disconnects the producer. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.groups.keys()].map((group) => this.stopGroup(group)));
      await this.admin?.disconnect().catch(() => {});
      if (this.producerConnected) {
        await this.producerConnected.catch(() => {});
        await this.producer.disconnect();
      }
    })();
    return this.closing;
  }

  private connectProducer(): Promise<void> {
    this.producerConnected ??= this.producer.connect().catch((err: unknown) => {
      this.producerConnected = undefined;
      throw err;
    });
    return this.producerConnected;
  }

  private assertOpen(): void {
    if (this.closing) throw new Error('kafka transport is closed');
  }
}

function waitForJoin(consumer: Consumer): Promise<void> {
  return new Promise((resolve, reject) => {
    const removeJoin = consumer.on(consumer.events.GROUP_JOIN, () => {
      removeJoin();
      removeCrash();
      resolve();
    });
    const removeCrash = consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart) return;
      removeJoin();
      removeCrash();
      reject(payload.error);
    });
  });
}

function byTopic(messages: BusMessage[]): TopicMessages[] {
  const topics = new Map<string, Message[]>();
  for (const m of messages) {
    const list = topics.get(m.topic) ?? [];
    topics.set(m.topic, list);
    list.push({ key: m.key, value: m.payload, headers: { ...m.headers, 'event-id': m.eventId } });
  }
  return [...topics].map(([topic, list]) => ({ topic, messages: list }));
}

function toBusMessage(topic: string, message: KafkaMessage): BusMessage {
  const headers = decodeHeaders(message.headers);
  return {
    topic,
    key: message.key?.toString() ?? '',
    eventId: headers['event-id'] ?? '',
    payload: message.value ?? Buffer.alloc(0),
    headers,
  };
}

/** Header names come off the wire: a null-prototype object keeps `__proto__` an ordinary key. */
function decodeHeaders(raw: IHeaders | undefined): Record<string, string> {
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(raw ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) headers[name] = first.toString();
  }
  return headers;
}

const IDEMPOTENT_RETRY_WARNING = 'Limiting retries for the idempotent producer may invalidate EoS guarantees';

/** kafkajs logs (warn and above) go to the service's pino logger. */
function toPino(logger: Logger): logCreator {
  const log = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log: entry }) => {
      const { message, timestamp: _timestamp, ...fields } = entry;
      // Said once per producer because retries are bounded (PRODUCER_RETRY); the outbox relay
      // retries after that, and consumers dedupe, so the guarantee we rely on holds.
      if (message === IDEMPOTENT_RETRY_WARNING) return;
      if (level === logLevel.ERROR) log.error({ ...fields, namespace }, message);
      else if (level === logLevel.WARN) log.warn({ ...fields, namespace }, message);
      else if (level === logLevel.INFO) log.info({ ...fields, namespace }, message);
      else log.debug({ ...fields, namespace }, message);
    };
}
