import { DISCOVERY_PATH } from '../resources/meta/discovery.js';

/** Served at the root whatever the prefix rule says (Terraform's service discovery). */
const ROOT_PATHS = new Set([DISCOVERY_PATH]);

/**
 * `/api/v2` is optional on input (also when doubled): strip every leading copy, then serve under
 * exactly one. Everything this port serves is under it except the discovery document at the root
 * (ops endpoints have their own listener).
 */
export function normaliseUrl(url: string): string {
  const q = url.indexOf('?');
  let path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q);
  if (ROOT_PATHS.has(path)) return url;
  while (path === '/api/v2' || path.startsWith('/api/v2/')) path = path.slice('/api/v2'.length) || '/';
  return `/api/v2${path === '/' ? '' : path}${query}`;
}

/**
 * Query strings: bracket keys decoded (`page%5Bsize%5D` → `page[size]`), one string per key. The
 * result has no prototype: keys are user data (`__proto__`, `constructor`, `toString`) and are
 * stored, read and iterated as ordinary keys.
 */
export function parseQuery(raw: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of new URLSearchParams(raw)) {
    const previous = out[k];
    out[k] = previous !== undefined && k === 'include' ? `${previous},${v}` : v;
  }
  return out;
}
