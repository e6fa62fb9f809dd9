import type * as grpc from '@grpc/grpc-js';
import { contracts, copyMessage, messageCopies, messageRoot } from '../src/index.js';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { seededRandom } from './support/seeded-random.js';

/**
 * An in-process call copies each request and response as gRPC would (docs/adr/0033); the shortcut
 * must give exactly what the codecs give — defaults, enums, 64-bit numbers, oneofs, optional
 * fields, maps, Timestamps, bytes — for every message of every method, valid or not.
 */

const next = seededRandom(33);
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;

const STRINGS = ['', 'acme', 'ws-1', 'ünïcödé', '日本', '😀 pair', 'a\u0000b', ' ', 'x'.repeat(60)];
const LONE = ['\ud800', 'a\udc00b', `${'y'.repeat(50)}\ud83d`];
const NUMBERS = [0, -0, 1, -1, 42, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 32 + 5, 1.5, -2.7, 2 ** 53 - 1];
const LONGS = [...NUMBERS, '0', '123', '-5', '9007199254740993', 1_795_514_400, -62_135_596_800];

function scalar(type: string): unknown {
  switch (type) {
    case 'string':
      return next() < 0.05 ? pick(LONE) : pick(STRINGS);
    case 'bool':
      return pick([true, false, 0, 1, '']);
    case 'bytes':
      return pick([Buffer.from('abc'), new Uint8Array([1, 2, 3]), 'AQID', Buffer.alloc(0)]);
    case 'int64':
    case 'uint64':
    case 'sint64':
    case 'fixed64':
    case 'sfixed64':
      return pick(LONGS);
    case 'double':
    case 'float':
      return pick([0, 1.1, -3.25, 1e300, 0.1]);
    default:
      return pick(NUMBERS);
  }
}

function value(field: protobuf.Field, depth: number): unknown {
  const resolved = field.resolve().resolvedType;
  if (resolved instanceof protobuf.Enum) {
    const names = Object.keys(resolved.values);
    return next() < 0.8 ? pick(names) : pick([0, 1, 99, 'NOT_A_VALUE']);
  }
  if (resolved instanceof protobuf.Type) return message(resolved, depth + 1);
  return scalar(field.type);
}

/** A random plain object for `type`: fields set, unset, null, repeated, mapped, oneofs with one or more. */
function message(type: protobuf.Type, depth = 0): Record<string, unknown> | null {
  if (depth > 4) return null;
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const roll = next();
    if (roll < 0.25) continue;
    if (roll < 0.3) {
      out[field.name] = null;
      continue;
    }
    if (roll < 0.32) {
      // The wrong shape: a caller's bug, refused the same way by both.
      out[field.name] = pick(['oops', 7, [1], { a: 1 }]);
      continue;
    }
    const count = Math.floor(next() * 4);
    if (field.map) {
      const map: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) map[next() < 0.05 ? pick(LONE) : pick(STRINGS)] = value(field, depth);
      out[field.name] = map;
    } else if (field.repeated) {
      out[field.name] = Array.from({ length: count }, () => value(field, depth));
    } else {
      out[field.name] = value(field, depth);
    }
  }
  return out;
}

const methods = Object.values(contracts() as unknown as Record<string, unknown>).flatMap(function walk(
  node: unknown,
): Array<[string, grpc.MethodDefinition<unknown, unknown>]> {
  if (typeof node === 'function' && 'service' in node)
    return Object.entries((node as unknown as { service: grpc.ServiceDefinition }).service).map(
      ([name, def]) => [`${def.path} (${name})`, def as grpc.MethodDefinition<unknown, unknown>],
    );
  return node && typeof node === 'object' ? Object.values(node).flatMap(walk) : [];
});

/** What the caller gets over gRPC, or the error it would see. */
function outcome(run: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: run() };
  } catch (err) {
    return { error: `${(err as Error).constructor.name}: ${(err as Error).message}` };
  }
}

describe('the in-process message copy', () => {
  it('covers every method of proto/', () => {
    expect(methods.length).toBeGreaterThan(40);
    for (const [, def] of methods) {
      const copies = messageCopies(def.path);
      // Only a message with bytes (or floats) inside goes through the codecs every time.
      expect(copies.request === null).toBe(/bytes|float|double/.test(typesInside(def.path, 'request')));
      expect(copies.response === null).toBe(/bytes|float|double/.test(typesInside(def.path, 'response')));
    }
  });

  it('gives exactly what the codecs give, for random messages of every method', () => {
    let shortcuts = 0;
    for (const [name, def] of methods) {
      const method = lookup(def.path);
      const copies = messageCopies(def.path);
      for (const [copy, type, serialize, deserialize] of [
        [copies.request, method.resolvedRequestType!, def.requestSerialize, def.requestDeserialize],
        [copies.response, method.resolvedResponseType!, def.responseSerialize, def.responseDeserialize],
      ] as const) {
        for (let i = 0; i < 40; i++) {
          const input = i === 0 ? [] : message(type);
          const expected = outcome(() => deserialize(serialize(input)));
          const actual = outcome(() => copyMessage(copy, input, serialize, deserialize));
          expect(actual, `${name}: ${JSON.stringify(input)}`).toStrictEqual(expected);
          if (copy && 'value' in expected && copy(input) !== undefined) shortcuts++;
        }
      }
    }
    // Most messages take the shortcut (the rest: bytes fields, lone surrogates, invalid input).
    expect(shortcuts).toBeGreaterThan(methods.length * 40);
  });

  it('leaves a lone surrogate to the codecs, which turn it into U+FFFD as gRPC does', () => {
    const def = methods.find(
      ([, d]) => d.path === '/policyhub.adminorgs.v1.Workspaces/BatchGetWorkspaces',
    )![1];
    const copies = messageCopies(def.path);
    expect(copies.request!({ ids: ['ws-\ud800'] })).toBeUndefined();
    const copy = copyMessage(
      copies.request,
      { ids: ['ws-\ud800'] },
      def.requestSerialize,
      def.requestDeserialize,
    );
    expect((copy as { ids: string[] }).ids[0]).toMatch(/^ws-\ufffd+$/);
  });

  it('copies, never shares, what it was given', () => {
    const def = methods.find(
      ([, d]) => d.path === '/policyhub.adminorgs.v1.Workspaces/BatchGetWorkspaces',
    )![1];
    const input = { ids: ['ws-1', 'ws-2'] };
    const copy = copyMessage(
      messageCopies(def.path).request,
      input,
      def.requestSerialize,
      def.requestDeserialize,
    );
    expect(copy).toEqual(input);
    expect((copy as typeof input).ids).not.toBe(input.ids);
  });
});

function lookup(path: string): protobuf.Method {
  const slash = path.lastIndexOf('/');
  return messageRoot()
    .lookupService(path.slice(1, slash))
    .methods[path.slice(slash + 1)]!.resolve() as protobuf.Method;
}

/** The scalar types of every field inside a method's request or response, nested ones too. */
function typesInside(path: string, which: 'request' | 'response'): string {
  const seen = new Set<protobuf.Type>();
  const types: string[] = [];
  const visit = (type: protobuf.Type) => {
    if (seen.has(type)) return;
    seen.add(type);
    for (const f of type.fieldsArray) {
      types.push(f.type);
      const resolved = f.resolve().resolvedType;
      if (resolved instanceof protobuf.Type) visit(resolved);
    }
  };
  const method = lookup(path);
  visit((which === 'request' ? method.resolvedRequestType : method.resolvedResponseType)!);
  return types.join(' ');
}
