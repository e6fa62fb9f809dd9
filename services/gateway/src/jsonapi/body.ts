/**
 * Reads a JSON:API request document that its route's body schema has accepted (`validBody`,
 * ADR 0028): the envelope, `data.type`, JSON types, required and blank attributes, lengths,
 * ranges and relationship identifiers are the schema's to check, with the upstream 422 wording
 * (`jsonapi/validation-errors.ts`). This only reads values, leniently where real clients are
 * sloppy (extra keys ignored, full resource objects in relationship arrays: only `type` and `id`
 * are read, duplicates once). Rules the schema cannot state (attributes that must agree, members
 * of object attributes it only describes) stay with each resource's reader (ADR 0031).
 */
export class RequestDocument {
  readonly attributes: Record<string, unknown>;
  readonly relationships: Record<string, unknown>;

  constructor(body: unknown) {
    const data = ((body as { data?: unknown } | null | undefined)?.data ?? {}) as Record<string, unknown>;
    this.attributes = (data.attributes as Record<string, unknown> | null | undefined) ?? {};
    this.relationships = (data.relationships as Record<string, unknown> | null | undefined) ?? {};
  }

  /** A string attribute (undefined when absent or null). */
  string(name: string): string | undefined {
    return (this.attributes[name] ?? undefined) as string | undefined;
  }

  /** A string that may be sent as null to clear it (undefined when absent). */
  nullableString(name: string): string | null | undefined {
    return this.attributes[name] as string | null | undefined;
  }

  /** true or false (undefined when absent or null). */
  boolean(name: string): boolean | undefined {
    return (this.attributes[name] ?? undefined) as boolean | undefined;
  }

  /** An integer that may be sent as null to reset it (undefined when absent). */
  nullableInteger(name: string): number | null | undefined {
    return this.attributes[name] as number | null | undefined;
  }

  /** An object attribute (null clears it, undefined when absent); its members are the reader's. */
  object(name: string): Record<string, unknown> | null | undefined {
    return this.attributes[name] as Record<string, unknown> | null | undefined;
  }

  /** A list of strings (undefined when absent or null). */
  stringArray(name: string): string[] | undefined {
    return (this.attributes[name] ?? undefined) as string[] | undefined;
  }

  /** The ids of a to-many relationship, each once (undefined when absent or null). */
  relationshipIds(name: string): string[] | undefined {
    const rel = this.relationships[name] as { data: Array<{ id: string }> } | null | undefined;
    return rel ? idsOf(rel.data) : undefined;
  }

  /** The id of a to-one relationship (undefined when absent or null). */
  relationshipId(name: string): string | undefined {
    const rel = this.relationships[name] as { data: { id: string } | null } | null | undefined;
    return rel?.data?.id;
  }
}

/** The ids of a relationship endpoint's accepted body `{"data": [{type, id, …}, …]}`, each once. */
export const readIdentifierList = (body: unknown): string[] =>
  idsOf((body as { data: Array<{ id: string }> }).data);

const idsOf = (data: ReadonlyArray<{ id: string }>): string[] => [...new Set(data.map((el) => el.id))];

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
