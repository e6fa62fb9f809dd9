/**
 * URL paths that carry a capability in themselves (an upload URL, a plan log URL): anyone holding
 * one may use it, so it must never reach logs, metrics or spans. `/api/v2/uploads/<token>`
 * becomes `/api/v2/uploads/:token`, `/api/v2/plan-logs/<token>` `/api/v2/plan-logs/:token`.
 */
const CAPABILITY_PATHS = /(\/(?:uploads|plan-logs)\/)[^/?#]+/g;

export function redactPath(path: string): string {
  return path.replace(CAPABILITY_PATHS, '$1:token');
}
