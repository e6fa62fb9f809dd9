import { createLogger } from '@policyhub/telemetry';
import { buildApp } from './app.js';
import type { Clients } from './clients/index.js';

/**
 * The OpenAPI document as `npm run openapi` commits it (ADR 0029): generated from the route
 * schemas of an app built without backends (no request is served, so no client is called), in
 * the default `spec` vocabulary profile, as pretty-printed JSON with a final newline.
 */
export async function generateOpenApiDocument(): Promise<string> {
  const app = await buildApp({ clients: {} as Clients, logger: createLogger('openapi', 'silent') });
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}
