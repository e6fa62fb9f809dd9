import { type TSchema, Type } from '@sinclair/typebox';
import { JSON_API } from '../jsonapi/media-type.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../jsonapi/pagination.js';

/**
 * Route schemas shared by every resource (ADR 0028): path parameters and query strings (always
 * strings: the router and `parseQuery` produce nothing else, and the resources' readers answer
 * malformed values with their own 400/422), JSON:API response documents and the error document.
 */

/** Path parameters, each a string. */
export const params = <K extends string>(...names: K[]) =>
  Type.Object(
    Object.fromEntries(names.map((name) => [name, Type.String()])) as Record<
      K,
      ReturnType<typeof Type.String>
    >,
  );

const PAGE = {
  'page[number]': `Page number, from 1 (default 1).`,
  'page[size]': `Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
};

/** A query string: the documented parameters; others are ignored. */
export function query(
  parameters: Record<string, string>,
  options: { paged?: boolean; include?: readonly string[] } = {},
) {
  const all: Record<string, string> = {
    ...(options.paged ? PAGE : {}),
    ...(options.include !== undefined
      ? {
          include:
            options.include.length > 0
              ? `Comma-separated related resources to include: ${options.include.join(', ')}.`
              : 'Nothing can be included here: any value is a 400.',
        }
      : {}),
    ...parameters,
  };
  return Type.Object(
    Object.fromEntries(
      Object.entries(all).map(([name, description]) => [name, Type.Optional(Type.String({ description }))]),
    ),
    { additionalProperties: true },
  );
}

/** A list endpoint's query string: pagination, `include` and the given filters. */
export const listQuery = (include: readonly string[], filters: Record<string, string> = {}) =>
  query(filters, { paged: true, include });

const ERROR_OBJECT = Type.Object(
  {
    status: Type.String({ description: 'The HTTP status code, as a string.' }),
    title: Type.String(),
    detail: Type.Optional(Type.String()),
    source: Type.Optional(
      Type.Object(
        {
          pointer: Type.Optional(
            Type.String({ description: 'JSON Pointer to the offending member of the request document.' }),
          ),
          parameter: Type.Optional(Type.String({ description: 'The offending query parameter.' })),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
);

/** The JSON:API error document every failure answers with (docs/errors.md). */
export const ErrorDocument = Type.Object(
  { errors: Type.Array(ERROR_OBJECT) },
  { $id: 'ErrorDocument', additionalProperties: true },
);

const RELATIONSHIPS = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Related resources: `{"data": identifier | [identifiers] | null}`, some with `links`.',
});

/** A resource object of `type` (attributes as documented in docs/api and the resource's guide). */
export const resource = (type: string, description?: string) =>
  Type.Object(
    {
      id: Type.String(),
      type: Type.Literal(type),
      attributes: Type.Record(Type.String(), Type.Unknown()),
      relationships: Type.Optional(RELATIONSHIPS),
      links: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: true, ...(description ? { description } : {}) },
  );

const INCLUDED = Type.Optional(
  Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    description: 'Related resources asked for with `include`.',
  }),
);

const PAGINATION_LINKS = Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]));
const PAGINATION_META = Type.Object(
  {
    pagination: Type.Object(
      {
        'current-page': Type.Integer(),
        'page-size': Type.Integer(),
        'prev-page': Type.Union([Type.Integer(), Type.Null()]),
        'next-page': Type.Union([Type.Integer(), Type.Null()]),
        'total-pages': Type.Integer(),
        'total-count': Type.Integer(),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

/** `{"data": resource, "included"?}`. */
export const resourceDocument = (type: string) =>
  Type.Object({ data: resource(type), included: INCLUDED }, { additionalProperties: true });

/** `{"data": [resources], "included"?, "links", "meta": {"pagination"}}`. */
export const listDocument = (type: string, options: { paged?: boolean } = { paged: true }) =>
  Type.Object(
    {
      data: Type.Array(resource(type)),
      included: INCLUDED,
      ...(options.paged === false
        ? { links: Type.Optional(PAGINATION_LINKS), meta: Type.Optional(PAGINATION_META) }
        : { links: PAGINATION_LINKS, meta: PAGINATION_META }),
    },
    { additionalProperties: true },
  );

export const NoContent = Type.Null({ description: 'No content.' });

/** Response schemas by status, with the error document for every 4xx and 5xx. */
export const responses = (ok: Record<number, TSchema>) => ({
  ...ok,
  '4xx': Type.Ref('ErrorDocument'),
  '5xx': Type.Ref('ErrorDocument'),
});

interface RouteParts {
  summary: string;
  /** `[]` for operations that need no token. */
  security?: Array<Record<string, string[]>>;
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  /** Success responses by status. */
  response: Record<number, TSchema>;
  /** Media types of the answers (default: the JSON:API media type). */
  produces?: string[];
  /** Media types of the body (default with a body: either JSON type; raw bodies take any). */
  consumes?: string[];
}

/** A route's `schema` option: its parts, the resource's tag, and the error document for failures. */
export const schema = (tag: string, parts: RouteParts) => ({
  tags: [tag],
  ...(parts.body ? { consumes: [JSON_API, 'application/json'] } : {}),
  produces: [JSON_API],
  ...parts,
  response: responses(parts.response),
});

/** Every identifier-addressed route's parameters. */
export const IdParams = params('id');
export const OrgParams = params('org');
