import { badRequest } from '@policyhub/errors';

/**
 * Parses `include` (comma list, possibly with an encoded comma) against the names an endpoint
 * supports. Hyphen and underscore spellings are the same name (`current-version` ==
 * `current_version`); the result uses the underscore spelling. Unknown names are a 400.
 */
export function parseInclude(raw: string | undefined, allowed: readonly string[]): Set<string> {
  const result = new Set<string>();
  if (raw === undefined || raw.trim() === '') return result;
  const canonical = new Map(allowed.map((a) => [normalise(a), a]));
  for (const part of raw.split(',')) {
    const name = part.trim();
    if (!name) continue;
    const match = canonical.get(normalise(name));
    if (!match) {
      throw badRequest(
        'GATEWAY_INVALID_INCLUDE',
        `Invalid include parameter: ${name} (allowed: ${allowed.join(', ') || 'none'})`,
        'include',
      );
    }
    result.add(match);
  }
  return result;
}

const normalise = (s: string) => s.toLowerCase().replace(/-/g, '_');

/** For endpoints that include nothing: any `include` value is unknown (400). */
export const refuseInclude = (raw: string | undefined): void => {
  parseInclude(raw, []);
};
