import { Kind, type Static, type TProperties, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { spellingsOf, CANONICAL, type WireNames } from '../vocabulary.js';
import {
  booleanAttribute,
  type DocumentOptions as BodyOptions,
  describedAttribute,
  nullableIntegerAttribute,
  objectAttribute,
  resourceBody,
  type StringOptions,
  stringAttribute,
  toManyRelationship,
  toOneRelationship,
} from './jsonapi.js';

/**
 * One definition per resource type (ADR 0040). Each resource folder's `schema.ts` declares the
 * type's attributes, relationships and links once (`defineResource`), and the rest of its wire
 * shape is read off that definition:
 * - the exact response schema (ADR 0031) in the served vocabulary profile, registered once per
 *   app under its `$id` (components.schemas in the OpenAPI document); every object is closed
 *   (`additionalProperties: false`), so the response-validation mode fails on any member a
 *   serializer adds without saying so here;
 * - the serializer's return type (`Static<typeof DEFINITION.schema>`): a missing, extra or
 *   mistyped attribute does not compile;
 * - the create and update body schemas (ADR 0028): the writable attributes and relationships;
 * - the profile's names and values (ADR 0020): renamed keys, translated values and their schemas,
 *   which `plugins/vocabulary.ts` applies to every response document.
 * The builders are here; `resources/index.ts` is the registry of every definition.
 */

/** JSON Schema's `if`/`then`/`else`: `then` when the value matches `condition`, else `otherwise`. */
export const ifThenElse = <T = unknown>(condition: object, then: TSchema, otherwise: TSchema) =>
  Type.Unsafe<T>({
    if: condition,
    then,
    else: otherwise,
  });

/** A closed object: every property required unless wrapped in Type.Optional. */
export const closed = <T extends TProperties>(properties: T, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/**
 * `schema` or null, as a JSON type list (`"type": ["string", "null"]`) rather than an `anyOf`: one
 * schema node, which fast-json-stringify writes without trying alternatives.
 */
export const nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({
    ...schema,
    type: [schema.type as string, 'null'],
    // An enum lists every allowed value, so null must be one of them too.
    ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}),
  });

/** ISO-8601 UTC with a literal `Z`, as upstream serves them. */
export const Timestamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$',
  description: 'ISO-8601 UTC timestamp (`2026-01-01T00:00:00.000Z`).',
});

export const Count = Type.Integer({ minimum: 0 });

/** One of these words (an `enum`, not an `anyOf` of constants). */
export const enumOf = <W extends string>(values: readonly W[], description?: string) =>
  Type.Unsafe<W>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

/** `{"<status>-at": timestamp}` for every status the resource has entered. */
export const statusTimestamps = (description: string) =>
  Type.Unsafe<Record<string, string>>(
    Type.Object(
      {},
      {
        patternProperties: { '^[a-z][a-z-]*-at$': Timestamp },
        additionalProperties: false,
        description,
      },
    ),
  );

/** A resource identifier `{"id", "type"}` of `type`. */
export const identifier = <T extends string>(type: T) =>
  closed({ id: Type.String(), type: Type.Literal(type) });

/** `{"data": identifier | null}`. */
export const toOne = <T extends string>(type: T) => closed({ data: nullable(identifier(type)) });
/** `{"data": identifier}` (always set). */
export const toOneSet = <T extends string>(type: T) => closed({ data: identifier(type) });
/** `{"data": [identifiers]}`. */
export const toMany = <T extends string>(type: T) => closed({ data: Type.Array(identifier(type)) });
/** `{"links": {"related": url}}` (no linkage). */
export const relatedOnly = () => closed({ links: closed({ related: Type.String() }) });

/** A capability URL for an upload (policy set and configuration versions). */
export const UploadUrl = nullable(
  Type.String({ description: 'Absolute single-use upload URL while usable, else null.' }),
);

/** `links.self`. */
export const self = { self: Type.String() };

/**
 * How a writable attribute or relationship appears in a request body: its schema under `name`
 * (the attribute's name, or one of its spellings), in the create body or the update body.
 */
export type Writer = (name: string, create: boolean) => TSchema;

/** Where an attribute differs in a vocabulary profile other than the spec's (ADR 0020). */
export interface Wording {
  /** Its name in the profile; bodies read it under every profile's name. */
  name?: (names: WireNames) => string;
  /** Its response schema in the profile. */
  schema?: (names: WireNames) => TSchema;
  /** Its value in the profile, from the canonical value and the resource's canonical attributes. */
  value?: (value: unknown, names: WireNames, attributes: Readonly<Record<string, unknown>>) => unknown;
}

/** An attribute or relationship: its response schema, and how it is written and worded. */
export interface Field<S extends TSchema = TSchema> {
  /** The response schema in the canonical (spec) names: what the serializer writes. */
  readonly schema: S;
  /** Set when clients may send it: its body schema. */
  readonly write?: Writer | undefined;
  readonly wording?: Wording | undefined;
}

export const field = <S extends TSchema>(schema: S, options: Omit<Field<S>, 'schema'> = {}): Field<S> => ({
  schema,
  ...options,
});

/** The body schemas of writable attributes, with the wording of `schemas/jsonapi.ts`. */
export const write = {
  /** A string; `required` applies to the create body (an update sends what changes). */
  string:
    ({ required, ...options }: StringOptions = {}): Writer =>
    (name, create) =>
      stringAttribute(name, { ...options, required: create && required === true }),
  boolean:
    (description?: string): Writer =>
    (name) =>
      booleanAttribute(name, description),
  nullableInteger:
    (options: Parameters<typeof nullableIntegerAttribute>[1]): Writer =>
    (name) =>
      nullableIntegerAttribute(name, options),
  object:
    (description: string, members: Record<string, TSchema> = {}): Writer =>
    (name) =>
      objectAttribute(name, description, members),
  /** Documented only: the resource's reader checks it, with its own wording. */
  described:
    (description: string, schema?: Record<string, unknown>): Writer =>
    () =>
      describedAttribute(description, schema),
};

/** A to-one relationship to `type`; `writable`: bodies may set it. */
export const hasOne = <T extends string>(type: T, options: { writable?: boolean } = {}) =>
  field(toOne(type), options.writable ? { write: (name) => toOneRelationship(name, type) } : {});

/** A to-many relationship to `type`; `writable`: bodies may set it. */
export const hasMany = <T extends string>(type: T, options: { writable?: boolean } = {}) =>
  field(toMany(type), options.writable ? { write: (name) => toManyRelationship(name, type) } : {});

type Fields = Record<string, Field | TSchema>;
type SchemaOf<F> = F extends Field<infer S> ? S : F;
type StaticFields<F extends Fields> = { [K in keyof F]: Static<SchemaOf<F[K]>> };
type StaticProperties<L extends TProperties> = { [K in keyof L]: Static<L[K]> };

/** The resource object a serializer returns: the canonical response schema's static type. */
type ResourceObjectShape<
  T extends string,
  A extends Fields,
  R extends Fields,
  O extends keyof R,
  L extends TProperties,
> = { id: string; type: T; attributes: StaticFields<A> } & ([keyof R] extends [never]
  ? unknown
  : { relationships: Omit<StaticFields<R>, O> & Partial<Pick<StaticFields<R>, O>> }) & {
    links: StaticProperties<L>;
  };

export interface ResourceSpec<
  T extends string,
  A extends Fields,
  R extends Fields,
  O extends keyof R & string,
  L extends TProperties,
> {
  /** The shared schema's name (`components.schemas`). */
  $id: string;
  /** The JSON:API `type`. */
  type: T;
  description: string;
  attributes: A;
  relationships?: R;
  /**
   * Relationships some resources leave out, all together (a global policy set has no `workspaces`
   * and `projects`). The schema is then two closed shapes chosen by `if`/`then`/`else` on the
   * first of them rather than optional members, so a serializer writing in schema order keeps the
   * serializer's order, and picks the shape without trying both.
   */
  omittable?: { members: readonly O[]; description: string };
  links: L;
  body?: {
    /** The writable attributes in body order, where it differs from the response's (422s list problems in it). */
    order?: readonly (keyof A & string)[];
    /** Attributes bodies may carry that are never served (upstream's aliases), after the others. */
    writeOnly?: Record<string, Writer>;
  };
}

export interface ResourceDefinition<S extends TSchema = TSchema> {
  readonly $id: string;
  readonly type: string;
  /** The response schema in the canonical names; `Static<>` of it is the serializer's return type. */
  readonly schema: S;
  /** The response schema in the names of a profile. */
  served(names: WireNames): TSchema;
  /** The create or update body: the writable attributes and relationships. */
  body(options: { create: boolean } & Omit<BodyOptions, 'relationships'>): TSchema;
  /** Every name a body may send `attribute` under (its canonical name first). */
  spellings(attribute: string): string[];
  /** The attributes of a served resource object in a profile's names; undefined: nothing differs. */
  translator(
    names: WireNames,
  ): ((attributes: Record<string, unknown>) => Record<string, unknown>) | undefined;
}

const asField = (f: Field | TSchema): Field => (Kind in f ? { schema: f as TSchema } : (f as Field));

export function defineResource<
  T extends string,
  A extends Fields,
  L extends TProperties,
  R extends Fields = Record<never, never>,
  O extends keyof R & string = never,
>(spec: ResourceSpec<T, A, R, O, L>): ResourceDefinition<TUnsafe<ResourceObjectShape<T, A, R, O, L>>> {
  const attributes = Object.entries(spec.attributes).map(([key, f]) => [key, asField(f)] as const);
  const relationships = Object.entries(spec.relationships ?? {}).map(
    ([key, f]) => [key, asField(f)] as const,
  );
  const byName = new Map(attributes);

  const spellings = (key: string): string[] => {
    const name = byName.get(key)?.wording?.name;
    return name ? [...new Set([key, ...spellingsOf(name)])] : [key];
  };

  const relationshipsSchema = (): TSchema | undefined => {
    if (relationships.length === 0) return undefined;
    const all = Object.fromEntries(relationships.map(([key, f]) => [key, f.schema]));
    const omittable = spec.omittable;
    if (!omittable) return closed(all);
    const kept = Object.fromEntries(
      relationships
        .filter(([key]) => !(omittable.members as readonly string[]).includes(key))
        .map(([key, f]) => [key, f.schema]),
    );
    return ifThenElse<Record<string, unknown>>(
      { type: 'object', required: [omittable.members[0]] },
      closed(all),
      closed(kept, { description: omittable.description }),
    );
  };

  const served = (names: WireNames): TSchema => {
    const rels = relationshipsSchema();
    return closed(
      {
        id: Type.String(),
        type: Type.Literal(spec.type),
        attributes: closed(
          Object.fromEntries(
            attributes.map(([key, f]) => [
              f.wording?.name?.(names) ?? key,
              f.wording?.schema?.(names) ?? f.schema,
            ]),
          ),
        ),
        ...(rels ? { relationships: rels } : {}),
        links: closed(spec.links),
      },
      { $id: spec.$id, description: spec.description },
    );
  };

  return {
    $id: spec.$id,
    type: spec.type,
    schema: served(CANONICAL) as TUnsafe<ResourceObjectShape<T, A, R, O, L>>,
    served,
    spellings,
    body({ create, ...options }) {
      const writable = attributes.filter(([, f]) => f.write).map(([key]) => key);
      const order = spec.body?.order ?? writable;
      if (order.length !== writable.length || !writable.every((key) => order.includes(key)))
        throw new Error(`${spec.$id}: body.order must list every writable attribute once`);
      const body: Record<string, TSchema> = {};
      for (const key of order) {
        const writer = byName.get(key)!.write!;
        for (const name of spellings(key)) body[name] = writer(name, create);
      }
      for (const [name, writer] of Object.entries(spec.body?.writeOnly ?? {}))
        body[name] = writer(name, create);
      const linkable = relationships.filter(([, f]) => f.write);
      return resourceBody(spec.type, body, {
        ...(linkable.length > 0
          ? { relationships: Object.fromEntries(linkable.map(([key, f]) => [key, f.write!(key, create)])) }
          : {}),
        ...options,
      });
    },
    translator(names) {
      const worded = new Map(attributes.filter(([, f]) => f.wording?.name || f.wording?.value));
      if (worded.size === 0) return undefined;
      return (canonical) => {
        const out: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(canonical)) {
          const wording = worded.get(key)?.wording;
          out[wording?.name?.(names) ?? key] = wording?.value
            ? wording.value(value, names, canonical)
            : value;
        }
        return out;
      };
    },
  };
}
