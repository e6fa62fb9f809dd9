import type { FastifyInstance } from 'fastify';
import type { Endpoint } from './security-endpoint.js';
import { ADMIN_ENDPOINTS } from './security-routes-admin.js';
import { POLICY_ENDPOINTS } from './security-routes-policies.js';
import { RUN_ENDPOINTS } from './security-routes-runs.js';
import { TENANCY_ENDPOINTS } from './security-routes-tenancy.js';

export * from './security-endpoint.js';

/**
 * Every endpoint the gateway serves, with who may call it and how to make a real call to it
 * (security-endpoint.ts describes an entry). The security suites are driven by this table, and a
 * test compares it with the routes the running gateway registered, so a new endpoint cannot go
 * untested: add it to the security-routes-*.ts file of its area.
 */
export const ENDPOINTS: Endpoint[] = [
  ...TENANCY_ENDPOINTS,
  ...POLICY_ENDPOINTS,
  ...RUN_ENDPOINTS,
  ...ADMIN_ENDPOINTS,
];

/** A route's identity whatever its parameters are called (`/x/:name` and `/x/:org` are one route). */
export const routeKey = (method: string, path: string) => `${method} ${path.replace(/:[^/]+/g, ':param')}`;

/**
 * The routes the gateway registered, read from fastify's route tree (HEAD is derived from GET and
 * left out). `printRoutes({ commonPrefix: false })` prints one node per line, indented four
 * characters per level under its parent, each with the methods it serves, e.g.
 * `│   └── /versions (POST, GET, HEAD)`; parameters sharing a position print as `:name|:org`.
 */
export function registeredRoutes(app: FastifyInstance): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('');
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim())) {
      if (method && method !== 'HEAD') routes.push({ method, path });
    }
  }
  return routes;
}
