import protobuf from 'protobufjs';
import { messageRoot } from './loader.js';
import { loaderOptions } from './options.js';

/**
 * The copy an in-process call (packages/grpc-runtime/src/in-process.ts) makes of a request or a response (docs/adr/0033), without the binary
 * round trip when that cannot change the result.
 *
 * Over gRPC a message is `toObject(decode(encode(fromObject(value))))` (proto-loader's serializer
 * and deserializer). For most messages, `toObject(fromObject(value))` is the same object: the
 * binary form keeps every field fromObject set, with its value. It differs in two cases, which go
 * through the codecs as before:
 * - a message type that has a `bytes` field anywhere inside (fromObject keeps the caller's buffer;
 *   decoding gives a fresh one) or a `float`/`double` field (a float loses precision on the wire);
 * - a string that is not well-formed UTF-16 (a lone surrogate), which the wire turns into U+FFFD.
 * packages/contracts/test/message-copy.test.ts compares both on random messages of every method.
 */

type Copy = (value: unknown) => unknown;

const options = loaderOptions as protobuf.IConversionOptions;
const byPath = new Map<string, { request: Copy | null; response: Copy | null }>();
const unsafe = new Map<protobuf.Type, boolean>();

/** Whether a message of `type` (or one nested in it) has a field the shortcut cannot copy exactly. */
function needsCodec(type: protobuf.Type): boolean {
  const known = unsafe.get(type);
  if (known !== undefined) return known;
  unsafe.set(type, false); // a recursive type is decided by its other fields
  let result = false;
  for (const field of type.fieldsArray) {
    if (field.type === 'bytes' || field.type === 'float' || field.type === 'double') result = true;
    const resolved = field.resolve().resolvedType;
    if (resolved instanceof protobuf.Type && needsCodec(resolved)) result = true;
    if (result) break;
  }
  unsafe.set(type, result);
  return result;
}

// String.prototype.isWellFormed (Node 20) is ES2024, past the tree's lib setting.
const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Every string (and key) inside is well-formed UTF-16, so UTF-8 carries it unchanged. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return isWellFormed(value);
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!wellFormed(item)) return false;
    return true;
  }
  for (const key in value) {
    if (!isWellFormed(key) || !wellFormed((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function shortcut(type: protobuf.Type): Copy | null {
  if (needsCodec(type)) return null;
  return (value) => {
    if (Array.isArray(value)) return undefined; // the serializer's own refusal
    const copy = type.toObject(type.fromObject(value as Record<string, unknown>), options);
    return wellFormed(copy) ? copy : undefined;
  };
}

/**
 * Copies for a method's request and response (by gRPC path, `/package.Service/Method`), or null
 * for one that must go through the codecs. Each copy returns undefined when this value must.
 */
export function messageCopies(path: string): { request: Copy | null; response: Copy | null } {
  let copies = byPath.get(path);
  if (!copies) {
    const slash = path.lastIndexOf('/');
    let method: protobuf.Method | undefined;
    try {
      method = messageRoot().lookupService(path.slice(1, slash)).methods[path.slice(slash + 1)]?.resolve() as
        | protobuf.Method
        | undefined;
    } catch {
      method = undefined; // not a service of proto/: the codecs
    }
    copies =
      method?.resolvedRequestType && method.resolvedResponseType
        ? { request: shortcut(method.resolvedRequestType), response: shortcut(method.resolvedResponseType) }
        : { request: null, response: null };
    byPath.set(path, copies);
  }
  return copies;
}

/** `deserialize(serialize(value))`, by the shortcut when it gives the same object. */
export function copyMessage(
  copy: Copy | null,
  value: unknown,
  serialize: (value: unknown) => Buffer,
  deserialize: (bytes: Buffer) => unknown,
): unknown {
  if (copy) {
    const result = copy(value);
    if (result !== undefined) return result;
  }
  return deserialize(serialize(value));
}
