import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { ProtoGrpcType } from './generated/index.js';
import { loaderOptions, protoRoot } from './options.js';

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.proto') ? [p] : [];
  });

let cachedGrpc: ProtoGrpcType | undefined;
let cachedRoot: protobuf.Root | undefined;

function protoFiles(): { root: string; files: string[] } {
  const root = protoRoot();
  return {
    root,
    files: walk(root)
      .map((f) => relative(root, f))
      .sort(),
  };
}

/** Every gRPC service and message of proto/, loaded once with the shared options. */
export function contracts(): ProtoGrpcType {
  if (!cachedGrpc) {
    const { root, files } = protoFiles();
    const definition = protoLoader.loadSync(files, { ...loaderOptions, includeDirs: [root] });
    cachedGrpc = grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
  }
  return cachedGrpc;
}

/** The protobufjs root behind the same files, used to encode and decode event payloads. */
export function messageRoot(): protobuf.Root {
  if (!cachedRoot) {
    const { root, files } = protoFiles();
    const r = new protobuf.Root();
    r.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(root, target));
    r.loadSync(
      files.map((f) => join(root, f)),
      { keepCase: false },
    );
    r.resolveAll();
    cachedRoot = r;
  }
  return cachedRoot;
}

/** As the gRPC loader decodes (options.ts): an event's int64 fields are numbers too. */
const toObjectOptions: protobuf.IConversionOptions = {
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

/**
 * Encodes a message (by fully qualified name, e.g. `policyhub.storage.v1.UploadCompleted`). Enum
 * fields take their value names, as the loader hands them out (`enums: String`); a name the enum
 * does not have is refused like any other wrong value.
 */
export function encodeMessage(typeName: string, value: object): Buffer {
  const type = messageRoot().lookupType(typeName);
  const problem = type.verify(withEnumNumbers(type, value));
  if (problem) throw new Error(`invalid ${typeName}: ${problem}`);
  return Buffer.from(type.encode(type.fromObject(value)).finish());
}

/** A copy of `value` whose enum value names are their numbers (what `verify` checks against). */
function withEnumNumbers(type: protobuf.Type, value: object): object {
  const out: Record<string, unknown> = { ...value };
  for (const field of type.fieldsArray) {
    const v = out[field.name];
    if (v === undefined || v === null) continue;
    const resolved = field.resolve().resolvedType;
    const convert = (x: unknown): unknown => {
      if (resolved instanceof protobuf.Enum) {
        return typeof x === 'string' && Object.hasOwn(resolved.values, x) ? resolved.values[x] : x;
      }
      return resolved instanceof protobuf.Type && typeof x === 'object' && x !== null
        ? withEnumNumbers(resolved, x)
        : x;
    };
    if (field.map) {
      out[field.name] = Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, convert(x)]));
    } else {
      out[field.name] = field.repeated && Array.isArray(v) ? v.map(convert) : convert(v);
    }
  }
  return out;
}

export function decodeMessage<T>(typeName: string, bytes: Uint8Array): T {
  const type = messageRoot().lookupType(typeName);
  return type.toObject(type.decode(bytes), toObjectOptions) as T;
}
