import { type TObject, type TSchema, Type } from '@sinclair/typebox';

/**
 * TypeBox builders for the JSON:API route schemas (ADR 0028). Each node that can fail carries the
 * client-facing wording of today's readers in `x-` annotations, so the validation error formatter
 * (`jsonapi/validation-errors.ts`) answers with exactly the upstream 422 detail and pointer:
 * - `x-detail`: the detail when the value has the wrong JSON type (or another keyword fails);
 * - `x-blank`: when it is missing (required), null, or empty where that is refused;
 * - `x-too-long`, `x-range`: maxLength, and minimum/maximum;
 * - `x-pointer`: the pointer to report when it is not the value's own (the envelope's root).
 * Strings are lenient where clients are sloppy: extra keys anywhere are accepted and ignored.
 */

const humanize = (name: string): string => {
  const words = name.replace(/[-_]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const DEFAULT_MAX_LENGTH = 10_000;

export interface StringOptions {
  /** Refused when absent or null (`can't be blank`). */
  required?: boolean;
  /** When sent, refused as null or `""` (an attribute that cannot be cleared). */
  present?: boolean;
  maxLength?: number;
  description?: string;
}

/** A string attribute, as `RequestDocument.string` / `nullableString` read it. */
export function stringAttribute(name: string, options: StringOptions = {}): TSchema {
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  const blank = `${humanize(name)} can't be blank`;
  return Type.Unsafe<string>({
    type: options.required || options.present ? 'string' : ['string', 'null'],
    ...(options.present ? { minLength: 1 } : {}),
    maxLength,
    ...(options.description ? { description: options.description } : {}),
    'x-detail': `${humanize(name)} must be a string`,
    'x-blank': blank,
    'x-too-long': `${humanize(name)} is too long (maximum is ${maxLength} characters)`,
    ...(options.required || options.present ? { 'x-null-blank': true } : {}),
    ...(options.required ? { 'x-required': true } : {}),
  });
}

/** true or false (null is accepted and means "not sent"). */
export const booleanAttribute = (name: string, description?: string): TSchema =>
  Type.Unsafe<boolean>({
    type: ['boolean', 'null'],
    ...(description ? { description } : {}),
    'x-detail': `${humanize(name)} must be true or false`,
  });

/** An integer in a range; null is accepted (it resets the attribute). */
export const nullableIntegerAttribute = (
  name: string,
  options: { min?: number; max?: number; description?: string } = {},
): TSchema => {
  const min = options.min ?? 0;
  const max = options.max ?? 2_147_483_647;
  return Type.Unsafe<number | null>({
    type: ['integer', 'null'],
    minimum: min,
    maximum: max,
    ...(options.description ? { description: options.description } : {}),
    'x-detail': `${humanize(name)} must be an integer`,
    'x-range': `${humanize(name)} must be between ${min} and ${max}`,
  });
};

/**
 * A JSON object attribute (null clears it). Its members are described, not validated here: the
 * resource's reader checks them with its own wording.
 */
export const objectAttribute = (name: string, description: string, members: Record<string, TSchema>) =>
  Type.Unsafe<Record<string, unknown> | null>({
    type: ['object', 'null'],
    description,
    'x-detail': `${humanize(name)} must be an object`,
    'x-members': Type.Object(members),
  });

/** A list of strings (null means "not sent"). */
export const stringListAttribute = (name: string, description?: string): TSchema =>
  Type.Unsafe<string[] | null>({
    type: ['array', 'null'],
    items: { type: 'string', 'x-detail': `${humanize(name)} must be a list of strings`, 'x-at-parent': true },
    ...(description ? { description } : {}),
    'x-detail': `${humanize(name)} must be a list of strings`,
  });

/** A value documented but checked only by the reader (its wording is specific to it). */
export const describedAttribute = (description: string, schema: Record<string, unknown> = {}): TSchema =>
  Type.Unsafe<unknown>({ description, ...schema, 'x-unchecked': true });

const MAX_IDENTIFIERS = 1000;

/**
 * A resource identifier `{type, id}`; full resource objects are accepted too (only `type` and
 * `id` are read), the deliberate leniency real clients rely on.
 */
export const identifier = (type: string): TObject =>
  Type.Object(
    {
      type: Type.Unsafe<string>({
        const: type,
        'x-detail': `type must be ${type}`,
        'x-blank': `type must be ${type}`,
      }),
      id: Type.Unsafe<string>({
        type: 'string',
        minLength: 1,
        maxLength: 200,
        'x-detail': 'id must be a non-empty string',
        'x-blank': 'id must be a non-empty string',
        'x-too-long': 'id must be a non-empty string',
      }),
    },
    {
      additionalProperties: true,
      'x-detail': 'must be a resource identifier {"type", "id"}',
      'x-scope': true,
    },
  );

const identifierArray = (type: string) =>
  Type.Array(identifier(type), {
    maxItems: MAX_IDENTIFIERS,
    'x-detail': 'data must be an array of resource identifiers',
    'x-too-many': `too many elements (maximum is ${MAX_IDENTIFIERS})`,
  });

/** A to-many relationship `{"data": [identifiers]}` (null means "not sent"). */
export const toManyRelationship = (name: string, type: string): TSchema =>
  Type.Unsafe<unknown>({
    type: ['object', 'null'],
    required: ['data'],
    properties: {
      data: { ...identifierArray(type), 'x-detail': `${name} must be {"data": [...]}`, 'x-at-parent': true },
    },
    'x-detail': `${name} must be {"data": [...]}`,
    'x-blank': `${name} must be {"data": [...]}`,
  });

/** A to-one relationship `{"data": identifier | null}` (null means "not sent"). */
export const toOneRelationship = (name: string, type: string): TSchema => {
  const pointer = `/data/relationships/${name}/data`;
  const detail = 'must be a resource identifier {"type", "id"}';
  const element = identifier(type);
  return Type.Unsafe<unknown>({
    type: ['object', 'null'],
    required: ['data'],
    properties: { data: { ...element, type: ['object', 'null'], 'x-pointer': undefined } },
    'x-detail': detail,
    'x-pointer': pointer,
  });
};

/** The body of a relationship endpoint: `{"data": [{type, id, …}, …]}`. */
export const identifierListBody = (type: string): TObject =>
  Type.Object(
    {
      data: Type.Unsafe<unknown>({
        ...identifierArray(type),
        'x-blank': 'data must be an array of resource identifiers',
        'x-envelope': true,
      }),
    },
    {
      additionalProperties: true,
      'x-detail': 'data must be an array of resource identifiers',
      'x-pointer': '/data',
      'x-envelope': true,
    },
  );

export interface DocumentOptions {
  /** `data.type` may also be `""`, null or absent (the Go client sends `""`). */
  allowEmptyType?: boolean;
  /** `data.type` may be absent. */
  typeOptional?: boolean;
  /** Other spellings of `data.type` accepted too (upstream's docs and clients disagree). */
  alsoTypes?: string[];
  relationships?: Record<string, TSchema>;
  description?: string;
}

/**
 * A request document `{"data": {"type", "attributes", "relationships"}}`. The envelope is checked
 * first and its first problem is the only one reported; attribute problems are reported together.
 */
export function resourceBody(
  type: string,
  attributes: Record<string, TSchema>,
  options: DocumentOptions = {},
) {
  const required = Object.entries(attributes)
    .filter(([, schema]) => (schema as Record<string, unknown>)['x-required'] === true)
    .map(([name]) => name);
  const also = options.alsoTypes ?? [];
  const typeSchema = options.allowEmptyType
    ? { enum: [type, ...also, '', null] }
    : also.length > 0
      ? { enum: [type, ...also] }
      : { const: type };
  const dataRequired = options.allowEmptyType || options.typeOptional ? [] : ['type'];
  return Type.Unsafe<{ data: Record<string, unknown> }>({
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: [...dataRequired, ...(required.length > 0 ? ['attributes'] : [])],
        properties: {
          type: {
            ...typeSchema,
            'x-detail': `data.type must be ${type}`,
            'x-blank': `data.type is required and must be ${type}`,
            'x-envelope': true,
          },
          attributes: {
            // With required attributes, null is "none sent": each required one is blank.
            type: required.length > 0 ? 'object' : ['object', 'null'],
            properties: attributes,
            ...(required.length > 0 ? { required, 'x-members-required': true } : {}),
            additionalProperties: true,
            'x-detail': 'attributes must be an object',
            'x-envelope': true,
          },
          relationships: {
            type: ['object', 'null'],
            properties: options.relationships ?? {},
            additionalProperties: true,
            'x-detail': 'relationships must be an object',
            'x-envelope': true,
          },
        },
        additionalProperties: true,
        'x-detail': 'data must be an object',
        'x-blank': 'data must be an object',
        'x-envelope': true,
      },
    },
    additionalProperties: true,
    ...(options.description ? { description: options.description } : {}),
    'x-detail': 'data must be an object',
    'x-pointer': '/data',
    'x-envelope': true,
  });
}
