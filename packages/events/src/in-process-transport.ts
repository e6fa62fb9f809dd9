import type { BusMessage, EventTransport, MessageHandler, Subscription } from './transport.js';

interface Group {
  topics: Set<string>;
  handler: MessageHandler;
  /** Serialises delivery per group so messages keep their publish order. */
  tail: Promise<void>;
}

/**
 * The embedded-mode bus: delivers each message to every subscribed group in this process and
 * resolves publish only after every handler has finished, so the outbox row is marked sent only
 * when its effect is stored. A handler failure rejects publish and the relay re-sends later.
 */
export class InProcessTransport implements EventTransport {
  readonly kind = 'in-process' as const;
  private readonly groups = new Map<string, Group>();

  async publish(messages: BusMessage[]): Promise<void> {
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
    this.groups.clear();
  }
}
