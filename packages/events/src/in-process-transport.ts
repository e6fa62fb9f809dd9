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
 * The embedded-mode bus: delivers each message to every subscribed group in this process and
 * resolves publish only after every handler has finished, so the outbox row is marked sent only
 * when its effect is stored. A handler failure rejects publish and the relay re-sends later.
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
    for (const message of messages) {
      const targets = [...this.groups.values()].filter((g) => g.topics.has(message.topic));
      await Promise.all(targets.map((g) => this.deliver(g, message)));
    }
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
