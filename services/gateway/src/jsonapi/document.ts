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

export const toOne = (type: string, id: string | null | undefined): Relationship => ({
  data: id ? { id, type } : null,
});

export const toMany = (type: string, ids: readonly string[]): Relationship => ({
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

/** Empty proto strings mean "not set" on the wire; JSON:API wants null there. */
export const orNull = <T>(v: T | '' | undefined | null): T | null => (v === '' || v === undefined ? null : v);
