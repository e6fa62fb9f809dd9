import { timestampToIso } from '@policyhub/contracts';

/** JSON:API document shapes and small builders shared by every serializer. */

export interface Identifier {
  id: string;
  type: string;
}

export interface Relationship {
  data?: Identifier | Identifier[] | null;
  links?: Record<string, string>;
}

export interface ResourceObject {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, Relationship>;
  links?: Record<string, string | null>;
}

export const API_PREFIX = '/api/v2';

export const toOne = <T extends string>(
  type: T,
  id: string | null | undefined,
): { data: { id: string; type: T } | null } => ({
  data: id ? { id, type } : null,
});

export const toMany = <T extends string>(
  type: T,
  ids: readonly string[],
): { data: Array<{ id: string; type: T }> } => ({
  data: ids.map((id) => ({ id, type })),
});

export const selfLink = (path: string) => ({ self: `${API_PREFIX}${path}` });

/** Collects `included` resources without duplicates, in first-seen order. */
export class Included {
  private readonly items = new Map<string, ResourceObject>();

  add(resources: Iterable<ResourceObject>): void {
    for (const r of resources) {
      const key = `${r.type}/${r.id}`;
      if (!this.items.has(key)) this.items.set(key, r);
    }
  }

  toArray(): ResourceObject[] {
    return [...this.items.values()];
  }
}

export function single(resource: ResourceObject, included?: Included) {
  return included ? { data: resource, included: included.toArray() } : { data: resource };
}

/**
 * A time every record has (`created-at`, `updated-at`): services always set it. Were one missing,
 * this is `""`, which is what the schema serializer writes for a missing string anyway, and which
 * the response-validation mode refuses (a timestamp's pattern).
 */
export const isoTime = (at: Parameters<typeof timestampToIso>[0]): string => timestampToIso(at) ?? '';

/** Empty proto strings mean "not set" on the wire; JSON:API wants null there. */
export const orNull = <T>(v: T | '' | undefined | null): T | null => (v === '' || v === undefined ? null : v);
