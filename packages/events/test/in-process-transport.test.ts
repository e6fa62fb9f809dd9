import { describe, expect, it } from 'vitest';
import { InProcessTransport } from '../src/index.js';

describe('in-process transport', () => {
  it('delivers to every subscribed group and resolves publish after the handlers finish', async () => {
    const t = new InProcessTransport();
    const seen: string[] = [];
    await t.subscribe('a', ['x'], async (m) => void seen.push(`a:${m.eventId}`));
    await t.subscribe('b', ['x'], async (m) => void seen.push(`b:${m.eventId}`));
    await t.publish([{ topic: 'x', key: 'k', eventId: 'e1', payload: Buffer.alloc(0), headers: {} }]);
    expect(seen.sort()).toEqual(['a:e1', 'b:e1']);
  });
});
