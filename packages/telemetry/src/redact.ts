/**
 * URL paths that carry a capability in themselves: anyone holding one may upload, so it must
 * never reach logs, metrics or spans. `/api/v2/uploads/<token>` becomes `/api/v2/uploads/:token`.
 */
const CAPABILITY_PATHS = /(\/uploads\/)[^/?#]+/g;

export function redactPath(path: string): string {
  return path.replace(CAPABILITY_PATHS, '$1:token');
}
