import { type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { JSON_API } from '../jsonapi/media-type.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../jsonapi/pagination.js';
import { closed, ifThenElse, nullable, type ResourceDefinition } from './resources.js';

/** A shared resource schema, referred to by its name (`$id`). */
type Resource = Pick<ResourceDefinition, '$id' | 'type'>;
const refOf = (r: Resource) => Type.Ref(r.$id);

/**
 * Route schemas shared by every resource (ADR 0028): path parameters and query strings (always
 * strings: the router and `parseQuery` produce nothing else, and the resources' readers answer
 * malformed values with their own 400/422), JSON:API response documents (exact, over the shared
 * resource schemas of `resources.ts`, ADR 0031) and the error document.
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

const ERROR_OBJECT = closed({
  status: Type.String({ description: 'The HTTP status code, as a string.' }),
  code: Type.String({ description: 'The catalog code (docs/errors.md).' }),
  title: Type.String(),
  detail: Type.Optional(Type.String()),
  source: Type.Optional(
    closed({
      pointer: Type.Optional(
        Type.String({ description: 'JSON Pointer to the offending member of the request document.' }),
      ),
      parameter: Type.Optional(Type.String({ description: 'The offending query parameter.' })),
    }),
  ),
});

/** The JSON:API error document every failure answers with (docs/errors.md). */
export const ErrorDocument = closed(
  { errors: Type.Array(ERROR_OBJECT, { minItems: 1 }) },
  { $id: 'ErrorDocument' },
);

/**
 * The resources `include` can add to a document, by shared schema name; with several, an
 * `if`/`then`/`else` chain on `type` picks each element's schema (rather than an `anyOf`, which a
 * serializer resolves by validating the element against every alternative).
 */
function includedMember(included: readonly Resource[], required = false) {
  const member = Type.Array(byType(included), { description: 'Related resources asked for with `include`.' });
  return required ? member : Type.Optional(member);
}

const byType = ([first, ...rest]: readonly Resource[]): TSchema =>
  rest.length === 0
    ? refOf(first!)
    : ifThenElse(
        { type: 'object', properties: { type: { const: first!.type } } },
        refOf(first!),
        byType(rest),
      );

const link = Type.String();
const PAGINATION_LINKS = closed({
  self: link,
  first: link,
  prev: nullable(link),
  next: nullable(link),
  last: link,
});
const pageNumber = Type.Integer({ minimum: 1 });
const PAGINATION = closed({
  'current-page': pageNumber,
  'page-size': pageNumber,
  'prev-page': nullable(pageNumber),
  'next-page': nullable(pageNumber),
  'total-pages': pageNumber,
  'total-count': Type.Integer({ minimum: 0 }),
});
const paginationMeta = (extra: TProperties = {}) => closed({ ...extra, pagination: PAGINATION });

export interface DocumentOptions {
  /** The resource types `include` may add (absent: the document never has `included`). */
  included?: readonly Resource[];
}

/** `{"data": resource, "included"?}`, exactly (ADR 0031). */
export const resourceDocument = (data: Resource, options: DocumentOptions = {}) =>
  closed({
    data: refOf(data),
    ...(options.included ? { included: includedMember(options.included) } : {}),
  });

/**
 * `{"data": [resources], "included"?, "links", "meta": {"pagination"}}`, exactly; with `paged:
 * false` the pagination members are there only when the client asked for a page; `meta` adds
 * members beside `meta.pagination`. A paged list that may include is two closed shapes chosen by
 * `if`/`then`/`else` on `included`, so `included` keeps its place before `links` when a serializer
 * writes members in schema order (it would put an optional member after the required ones).
 */
export const listDocument = (
  data: Resource,
  options: DocumentOptions & { paged?: boolean; meta?: TProperties } = {},
) => {
  const list = { data: Type.Array(refOf(data)) };
  if (options.paged === false) {
    return closed({
      ...list,
      ...(options.included ? { included: includedMember(options.included) } : {}),
      links: Type.Optional(PAGINATION_LINKS),
      meta: Type.Optional(paginationMeta(options.meta)),
    });
  }
  const pages = { links: PAGINATION_LINKS, meta: paginationMeta(options.meta) };
  if (!options.included) return closed({ ...list, ...pages });
  return ifThenElse<Record<string, unknown>>(
    { type: 'object', required: ['included'] },
    closed({ ...list, included: includedMember(options.included, true), ...pages }),
    closed({ ...list, ...pages }),
  );
};

export const NoContent = Type.Null({ description: 'No content.' });

/** Response schemas by status, with the error document for every 4xx and 5xx. */
export const responses = (ok: Record<number, TSchema>) => ({
  ...ok,
  '4xx': Type.Ref('ErrorDocument'),
  '5xx': Type.Ref('ErrorDocument'),
});

interface RouteParts {
  summary: string;
  /** The body may be left out: the OpenAPI document says so (ADR 0047). */
  'x-optional-body'?: boolean;
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
