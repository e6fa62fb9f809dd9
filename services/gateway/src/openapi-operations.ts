/**
 * What client generators need from the OpenAPI document beyond the route schemas (ADR 0047):
 * an `operationId` on every operation, `servers`, request bodies of the raw upload PUTs, optional
 * bodies marked optional, and error answers declared as served (JSON:API, whatever the success
 * media type).
 */

import { JSON_API } from './jsonapi/media-type.js';

/** A route schema may set its own `operationId`; otherwise it is derived from method and path. */
export interface OperationSchema {
  operationId?: string;
  consumes?: readonly string[];
  body?: unknown;
  /** The body may be left out (the operation's requestBody is then `required: false`). */
  'x-optional-body'?: boolean;
}

const PREFIX = '/api/v2';

const camel = (words: readonly string[]) =>
  words
    .flatMap((w) => w.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase()))
    .join('');

const singular = (word: string) =>
  word.endsWith('ies')
    ? `${word.slice(0, -3)}y`
    : word.endsWith('s') && !word.endsWith('ss') && word !== 'details'
      ? word.slice(0, -1)
      : word;

const isPlural = (word: string) => word.endsWith('s') && word !== 'details';

/**
 * A verb-noun id from the method and the path, stable as long as the path is (paths are the API's
 * contract): the literal segments are the noun (`/policy-sets/:id/parameters/:parameter_id` →
 * `PolicySetParameter`), the method and the path's shape the verb: `get`, `list`, `create`,
 * `update`, `delete`, `replace`; `add`/`remove`/`list`/`replace` for `relationships/…`; the action's
 * name for `actions/…`; `upload` for raw-body PUTs.
 */
export function deriveOperationId(method: string, url: string, schema: OperationSchema = {}): string {
  const path = url.startsWith(PREFIX) ? url.slice(PREFIX.length) : url;
  const segments = path.split('/').filter(Boolean);
  const isParam = (s: string) => s.startsWith(':') || s.startsWith('{');
  const literals = segments.filter((s) => !isParam(s));
  const last = segments[segments.length - 1] ?? '';
  const m = method.toUpperCase();

  const marker = literals.findIndex((s) => s === 'relationships' || s === 'actions');
  if (marker >= 0) {
    const owner = literals.slice(0, marker).map(singular);
    const name = literals.slice(marker + 1);
    if (literals[marker] === 'actions') return camel([...name, ...owner]);
    const verb = { POST: 'add', DELETE: 'remove', GET: 'list', PATCH: 'replace', PUT: 'replace' }[m] ?? m;
    return camel([verb, ...owner, ...name]);
  }
  const rawBody = !schema.body && (schema.consumes ?? []).includes('application/octet-stream');
  if (m === 'PUT' && rawBody) {
    const nouns = literals
      .map((s, i) => (i < literals.length - 1 ? singular(s) : s))
      .filter((s) => s !== 'upload' && s !== 'uploads');
    return camel(['upload', ...(nouns.length > 0 ? nouns : ['archive'])]);
  }
  if (isParam(last)) {
    const verb = { GET: 'get', PATCH: 'update', DELETE: 'delete', PUT: 'replace', POST: 'create' }[m] ?? m;
    return camel([verb, ...literals.map(singular)]);
  }
  const parents = literals.slice(0, -1).map(singular);
  if (isPlural(last)) {
    if (m === 'GET') return camel(['list', ...parents, last]);
    if (m === 'POST') return camel(['create', ...parents, singular(last)]);
    if (m === 'PUT' || m === 'PATCH') return camel(['replace', ...parents, last]);
  }
  const verb = { GET: 'get', POST: 'create', PUT: 'replace', PATCH: 'update', DELETE: 'delete' }[m] ?? m;
  return camel([verb, ...parents, last]);
}

/** Where the document's paths are served: the gateway itself (paths carry the `/api/v2` prefix). */
export const SERVERS = [
  {
    url: '{scheme}://{host}',
    description: 'A PolicyHub gateway (`npm start` listens on http://127.0.0.1:8080).',
    variables: {
      scheme: { default: 'http', enum: ['http', 'https'] },
      host: { default: '127.0.0.1:8080', description: 'Host and port of the gateway.' },
    },
  },
];

/** The route-level part: an operationId, and a body schema for raw-body uploads. */
export function transformRoute<S extends OperationSchema>(
  method: string,
  url: string,
  schema: S | undefined,
) {
  if (!schema) return { schema: schema as unknown as S, url };
  const rawBody = !schema.body && (schema.consumes ?? []).includes('application/octet-stream');
  return {
    url,
    schema: {
      ...schema,
      operationId: schema.operationId ?? deriveOperationId(method, url, schema),
      ...(rawBody
        ? {
            body: {
              type: 'string',
              contentMediaType: 'application/octet-stream',
              description: 'The raw bytes.',
            },
          }
        : {}),
    },
  };
}

type Operation = {
  requestBody?: { required?: boolean; content?: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  'x-optional-body'?: boolean;
};

/** The document-level part: optional bodies, error media types, servers. */
export function finishDocument<D extends { paths?: Record<string, Record<string, Operation>> }>(doc: D): D {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations)) {
      if (op['x-optional-body'] && op.requestBody) op.requestBody.required = false;
      delete op['x-optional-body'];
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!/^[45]/.test(status) || !response.content) continue;
        // Errors are JSON:API documents whatever the operation's success media type.
        const schema = Object.values(response.content)[0]?.schema;
        response.content = { [JSON_API]: { schema } };
      }
    }
  }
  return { ...doc, servers: SERVERS };
}
