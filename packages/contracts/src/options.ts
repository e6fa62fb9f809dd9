import type { Options } from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { documented as doc, loadConfig, z } from '@policyhub/config';

/** The one set of loader options; scripts/generate.mjs passes the same flags to the type generator. */
export const loaderOptions: Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

export const contractsConfigShape = {
  PROTO_DIR: doc(
    z.string().optional(),
    'where the `.proto` contracts are loaded from',
    "the repository's `proto/`, found upwards from `packages/contracts` (images: `/app/proto`)",
  ),
};

/** Where the .proto files live: PROTO_DIR, or the repository's proto/ found upwards from here. */
export function protoRoot(): string {
  const { PROTO_DIR } = loadConfig(contractsConfigShape);
  if (PROTO_DIR) return resolve(PROTO_DIR);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, 'policyhub'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('proto/ directory not found; set PROTO_DIR');
}
