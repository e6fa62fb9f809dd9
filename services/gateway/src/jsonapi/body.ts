import { AppError, type ErrorItem } from '@policyhub/errors';

/**
 * Reads a JSON:API request document: strict about shape and JSON types (422 with a pointer),
 * lenient where real clients are sloppy (extra keys ignored, full resource objects accepted in
 * relationship arrays, optional empty `data.type` where an endpoint allows it).
 */
export class RequestDocument {
  private readonly errors: ErrorItem[] = [];
  readonly attributes: Record<string, unknown>;
  readonly relationships: Record<string, unknown>;
  readonly data: Record<string, unknown>;

  constructor(
    body: unknown,
    expectedType: string,
    options: { allowEmptyType?: boolean; typeOptional?: boolean } = {},
  ) {
    const data = isObject(body) ? body.data : undefined;
    if (!isObject(data)) {
      throw invalid('/data', 'data must be an object');
    }
    this.data = data;
    const type = data.type;
    const typeOk =
      type === expectedType ||
      (options.allowEmptyType && (type === '' || type === undefined || type === null)) ||
      (options.typeOptional && type === undefined);
    if (!typeOk) {
      throw invalid(
        '/data/type',
        type === undefined
          ? `data.type is required and must be ${expectedType}`
          : `data.type must be ${expectedType}`,
      );
    }
    if (data.attributes !== undefined && data.attributes !== null && !isObject(data.attributes)) {
      throw invalid('/data/attributes', 'attributes must be an object');
    }
    if (data.relationships !== undefined && data.relationships !== null && !isObject(data.relationships)) {
      throw invalid('/data/relationships', 'relationships must be an object');
    }
    this.attributes = (data.attributes as Record<string, unknown> | undefined) ?? {};
    this.relationships = (data.relationships as Record<string, unknown> | undefined) ?? {};
  }

  has(name: string): boolean {
    return this.attributes[name] !== undefined;
  }

  private fail(name: string, detail: string): undefined {
    this.errors.push({ title: 'invalid attribute', detail, pointer: `/data/attributes/${name}` });
    return undefined;
  }

  /**
   * A string attribute; `required` rejects absence and null, `present` rejects null and `""` when
   * the attribute is sent (an attribute that cannot be cleared: null or empty is not "leave as is").
   */
  string(
    name: string,
    options: { required?: boolean; present?: boolean; maxLength?: number } = {},
  ): string | undefined {
    const v = this.attributes[name];
    if (v === undefined || v === null) {
      return options.required || (options.present && v === null)
        ? this.fail(name, `${humanize(name)} can't be blank`)
        : undefined;
    }
    if (typeof v !== 'string') return this.fail(name, `${humanize(name)} must be a string`);
    if (options.present && v === '') return this.fail(name, `${humanize(name)} can't be blank`);
    if (v.length > (options.maxLength ?? 10_000)) {
      return this.fail(
        name,
        `${humanize(name)} is too long (maximum is ${options.maxLength ?? 10_000} characters)`,
      );
    }
    return v;
  }

  /** A string that may be sent as null; returns null then (undefined when absent). */
  nullableString(name: string, options: { maxLength?: number } = {}): string | null | undefined {
    if (this.attributes[name] === null) return null;
    return this.string(name, options);
  }

  boolean(name: string): boolean | undefined {
    const v = this.attributes[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') return this.fail(name, `${humanize(name)} must be true or false`);
    return v;
  }

  nullableInteger(name: string, options: { min?: number; max?: number } = {}): number | null | undefined {
    const v = this.attributes[name];
    if (v === undefined) return undefined;
    if (v === null) return null;
    if (typeof v !== 'number' || !Number.isInteger(v))
      return this.fail(name, `${humanize(name)} must be an integer`);
    if (v < (options.min ?? 0) || v > (options.max ?? 2_147_483_647)) {
      return this.fail(
        name,
        `${humanize(name)} must be between ${options.min ?? 0} and ${options.max ?? 2_147_483_647}`,
      );
    }
    return v;
  }

  object(name: string): Record<string, unknown> | null | undefined {
    const v = this.attributes[name];
    if (v === undefined) return undefined;
    if (v === null) return null;
    if (!isObject(v)) return this.fail(name, `${humanize(name)} must be an object`);
    return v;
  }

  stringArray(name: string): string[] | undefined {
    const v = this.attributes[name];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
      return this.fail(name, `${humanize(name)} must be a list of strings`);
    return v as string[];
  }

  /** Ids of a to-many relationship whose elements must have `type` = elementType. */
  relationshipIds(name: string, elementType: string): string[] | undefined {
    const rel = this.relationships[name];
    if (rel === undefined || rel === null) return undefined;
    const pointer = `/data/relationships/${name}`;
    if (!isObject(rel) || !Array.isArray(rel.data)) {
      this.errors.push({ title: 'invalid attribute', detail: `${name} must be {"data": [...]}`, pointer });
      return undefined;
    }
    return readIdentifiers(rel.data, elementType, `${pointer}/data`, this.errors);
  }

  /** Id of a to-one relationship (undefined when absent or null). */
  relationshipId(name: string, elementType: string): string | undefined {
    const rel = this.relationships[name];
    if (rel === undefined || rel === null) return undefined;
    const pointer = `/data/relationships/${name}/data`;
    const data = isObject(rel) ? rel.data : undefined;
    if (data === null) return undefined;
    const ids = readIdentifiers([data], elementType, pointer, this.errors, true);
    return ids[0];
  }

  /** Throws every collected problem as one 422. */
  done(): void {
    if (this.errors.length > 0) throw new AppError('invalid', 'GATEWAY_INVALID_BODY', this.errors);
  }
}

/** The body of a relationship endpoint: `{"data": [{type, id, …}, …]}`. */
export function readIdentifierList(body: unknown, elementType: string): string[] {
  const data = isObject(body) ? body.data : undefined;
  if (!Array.isArray(data)) throw invalid('/data', 'data must be an array of resource identifiers');
  const errors: ErrorItem[] = [];
  const ids = readIdentifiers(data, elementType, '/data', errors);
  if (errors.length > 0) throw new AppError('invalid', 'GATEWAY_INVALID_BODY', errors);
  return ids;
}

function readIdentifiers(
  data: unknown[],
  elementType: string,
  pointer: string,
  errors: ErrorItem[],
  single = false,
): string[] {
  if (data.length > 1000) {
    errors.push({ title: 'invalid attribute', detail: 'too many elements (maximum is 1000)', pointer });
    return [];
  }
  const ids: string[] = [];
  data.forEach((el, i) => {
    const at = single ? pointer : `${pointer}/${i}`;
    if (!isObject(el)) {
      errors.push({
        title: 'invalid attribute',
        detail: 'must be a resource identifier {"type", "id"}',
        pointer: at,
      });
      return;
    }
    if (el.type !== elementType) {
      errors.push({
        title: 'invalid attribute',
        detail: `type must be ${elementType}`,
        pointer: `${at}/type`,
      });
      return;
    }
    if (typeof el.id !== 'string' || el.id === '' || el.id.length > 200) {
      errors.push({
        title: 'invalid attribute',
        detail: 'id must be a non-empty string',
        pointer: `${at}/id`,
      });
      return;
    }
    ids.push(el.id);
  });
  return [...new Set(ids)];
}

const invalid = (pointer: string, detail: string) =>
  new AppError('invalid', 'GATEWAY_INVALID_BODY', [{ title: 'invalid attribute', detail, pointer }]);

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const humanize = (name: string): string => {
  const words = name.replace(/[-_]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};
