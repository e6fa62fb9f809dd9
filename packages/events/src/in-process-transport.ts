import { topicByName } from './topics.js';
import type { BusMessage, EventTransport, MessageHandler, Subscription } from './transport.js';

interface Group {
  topics: Set<string>;
  handler: MessageHandler;
  /** Serialises delivery per group so messages keep their publish order. */
  tail: Promise<void>;
}

/** Thrown by publish while the bus is not accepting messages; the relay simply retries later. */
export class TransportNotReadyError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'TransportNotReadyError';
  }
}

/**
 * Thrown by the in-process bus for an event whose consumers are not in this process: marking it
 * sent would lose it (nothing persists here), so the outbox keeps it and the relay tries again.
 */
export class NoConsumerInProcessError extends Error {
  constructor(readonly topic: string) {
    super(
      `no consumer of ${topic} is subscribed in this process: in-process events work only where every ` +
        'consumer runs (npm start); separate processes need KAFKA_BROKERS',
    );
    this.name = 'NoConsumerInProcessError';
  }
}

/**
 * The embedded-mode bus: delivers each message to every subscribed group in this process and
 * resolves publish only after every handler has finished, so the outbox row is marked sent only
 * when its effect is stored. A handler failure rejects publish and the relay re-sends later.
 *
 * A message nobody in this process subscribed to is refused (NoConsumerInProcessError) unless its
 * topic is one no service consumes (TOPICS[…].consumedBy is empty): in a process that does not
 * host every consumer, in-process events would otherwise be marked sent and lost.
 */
export class InProcessTransport implements EventTransport {
  readonly kind = 'in-process' as const;
  private readonly groups = new Map<string, Group>();
  private state: 'held' | 'open' | 'closed';

  /**
   * `held: true` refuses publishes until open(): a process that starts several services opens the
   * bus once every consumer has subscribed, so an outbox row relayed during start-up is retried
   * rather than marked sent with nobody listening (it would be lost: nothing persists here).
   */
  constructor(options: { held?: boolean } = {}) {
    this.state = options.held ? 'held' : 'open';
  }

  open(): void {
    if (this.state === 'held') this.state = 'open';
  }

  async publish(messages: BusMessage[]): Promise<void> {
    if (this.state !== 'open') {
      throw new TransportNotReadyError(
        `in-process bus is ${this.state === 'held' ? 'not open yet' : 'closed'}`,
      );
    }
    const targets = messages.map((m) => [...this.groups.values()].filter((g) => g.topics.has(m.topic)));
    // Checked for the whole batch before anything is delivered: the relay re-sends all of it.
    const orphan = messages.find((m, i) => targets[i]!.length === 0 && !isConsumedNowhere(m.topic));
    if (orphan) throw new NoConsumerInProcessError(orphan.topic);
    for (const [i, message] of messages.entries()) {
      await Promise.all(targets[i]!.map((g) => this.deliver(g, message)));
    }
  }

  /** The bus is reachable while it is open. */
  async probe(): Promise<void> {
    if (this.state !== 'open') {
      throw new TransportNotReadyError(
        `in-process bus is ${this.state === 'held' ? 'not open yet' : 'closed'}`,
      );
    }
  }

  /** Each subscribed group and its topics. */
  subscriptions(): Map<string, string[]> {
    return new Map([...this.groups].map(([name, g]) => [name, [...g.topics]]));
  }

  private deliver(group: Group, message: BusMessage): Promise<void> {
    const run = group.tail.then(() => group.handler(message));
    group.tail = run.catch(() => {});
    return run;
  }

  async subscribe(group: string, topics: string[], handler: MessageHandler): Promise<Subscription> {
    const existing = this.groups.get(group);
    if (existing) {
      for (const t of topics) existing.topics.add(t);
      const previous = existing.handler;
      existing.handler = (m) => (topics.includes(m.topic) ? handler(m) : previous(m));
    } else {
      this.groups.set(group, { topics: new Set(topics), handler, tail: Promise.resolve() });
    }
    return { close: async () => void this.groups.delete(group) };
  }

  async close(): Promise<void> {
    this.state = 'closed';
    this.groups.clear();
  }
}

/** A topic of ours that no service consumes; unknown topics count as consumed somewhere. */
const isConsumedNowhere = (topic: string): boolean => topicByName(topic)?.consumedBy.length === 0;
