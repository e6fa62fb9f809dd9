import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { messageRoot } from '../src/index.js';

// Every RPC gets its own request and response message (`<Rpc>Request` /
// `<Rpc>Response`), so one RPC's message can grow a field without changing another RPC, and no
// RPC uses `google.protobuf.Empty` or a shared empty message.
//
// KNOWN EXCEPTIONS, written `<service>/<rpc> <request|response> <message>`: RPCs that still take
// a shared request or answer with a bare resource (or stream chunk). This list may only SHRINK:
// wrapping one of them means deleting its line here (the second test fails while a line no longer
// describes a real exception); nothing new may be added.
const knownExceptions = new Set<string>([]);

type Use = { key: string; pkg: string; rpc: string; side: 'request' | 'response'; message: string };

/** Every request and response of every policyhub service, as loaded from proto/. */
function uses(): Use[] {
  const out: Use[] = [];
  const visit = (ns: protobuf.NamespaceBase): void => {
    for (const o of ns.nestedArray) {
      if (o instanceof protobuf.Service) {
        const service = o.fullName.slice(1);
        if (!service.startsWith('policyhub.')) continue;
        const pkg = service.split('.').slice(0, -1).join('.');
        for (const m of o.methodsArray) {
          m.resolve();
          for (const [side, type] of [
            ['request', m.resolvedRequestType],
            ['response', m.resolvedResponseType],
          ] as const) {
            const message = type?.fullName.slice(1) ?? '';
            out.push({ key: `${service}/${m.name} ${side} ${message}`, pkg, rpc: m.name, side, message });
          }
        }
      } else if (o instanceof protobuf.Namespace) visit(o);
    }
  };
  visit(messageRoot());
  return out;
}

describe('gRPC request and response messages', () => {
  it('no RPC takes or returns google.protobuf.Empty or a shared Empty message', () => {
    const empties = uses().filter((u) => /(^|\.)Empty$/.test(u.message));
    expect(empties.map((u) => u.key)).toEqual([]);
  });

  it('every RPC has its own <Rpc>Request and <Rpc>Response, apart from the known exceptions', () => {
    const all = uses();
    expect(all.length).toBeGreaterThan(100);
    const offenders = all.filter(
      (u) => u.message !== `${u.pkg}.${u.rpc}${u.side === 'request' ? 'Request' : 'Response'}`,
    );
    const unexpected = offenders.filter((u) => !knownExceptions.has(u.key)).map((u) => u.key);
    expect(unexpected).toEqual([]);
    // An exception that has been wrapped must leave the list, so the list only shrinks.
    const offending = new Set(offenders.map((u) => u.key));
    expect([...knownExceptions].filter((k) => !offending.has(k))).toEqual([]);
  });

  it('no two RPCs outside the known exceptions share a request or response message', () => {
    const seen = new Map<string, string>();
    const shared: string[] = [];
    for (const u of uses().filter((x) => !knownExceptions.has(x.key))) {
      const other = seen.get(u.message);
      if (other !== undefined) shared.push(`${u.message}: ${other} and ${u.key}`);
      seen.set(u.message, u.key);
    }
    expect(shared).toEqual([]);
  });
});
