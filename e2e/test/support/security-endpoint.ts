import type { TestUser } from './fixtures.js';
import type { OrgContext, OrgRequirement, SecurityWorld } from './security-world.js';

/**
 * What the security suites know about one endpoint: who may call it, how to make a real call to
 * it, and the shape of what it reads (for fuzzing). The table itself is route-catalog.ts.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Who may call an endpoint (docs/security.md, docs/api/). */
export type Access =
  /** No token needed (ping, the upload capability URL). */
  | { kind: 'public' }
  /** Any valid token. */
  | { kind: 'authenticated' }
  /** The user the path names (or a site admin). */
  | { kind: 'self' }
  | { kind: 'site-admin' }
  /** Inside the resource's organization. */
  | { kind: 'org'; requirement: OrgRequirement };

export interface PreparedCall {
  params: Record<string, string>;
  /** A JSON:API request document (sent as application/vnd.api+json). */
  body?: unknown;
  /** Raw bytes (sent as application/octet-stream) instead of a JSON body. */
  raw?: Uint8Array;
  /** The organization whose members are tested, when not A (calls that delete their organization). */
  org?: OrgContext;
  /** For `self` endpoints: the user the path names. */
  self?: TestUser;
  /** A query string (encoded) the call needs, e.g. the organization the audit trail is read for. */
  query?: string;
}

export type AttributeKind = 'string' | 'boolean' | 'integer' | 'object' | 'string-list';

export interface BodySpec {
  /**
   * `document`: `{"data": {type, attributes, relationships}}`; `identifiers`: `{"data": [{type, id}]}`
   * (relationship endpoints); `optional-object`: absent or a JSON object (override); `none`: the
   * body is not read; `raw`: bytes, whatever they are.
   */
  shape: 'document' | 'identifiers' | 'optional-object' | 'none' | 'raw';
  /** Attributes the endpoint reads, with their JSON kind (fuzzing sends every other kind). */
  attributes?: Record<string, AttributeKind>;
  /** To-many relationships the document may carry. */
  relationships?: string[];
  /** `data.type` may be absent or empty (clients send `""` there); any other wrong type is refused. */
  emptyTypeAllowed?: boolean;
  /** The whole body may be left out (or sent as JSON null). */
  optional?: boolean;
  /** A raw body that must be a Terraform plan JSON document (`terraform show -json`). */
  planDocument?: boolean;
}

export interface QuerySpec {
  /** `page[number]` / `page[size]` are read (and validated). */
  paginated?: boolean;
  /** `include` is read (unknown values are a 400). */
  include?: boolean;
  /** Filters that reject values outside their domain with a 422. */
  strictFilters?: string[];
}

export interface Endpoint {
  method: HttpMethod;
  /** The path as the gateway registers it (`/api/v2/...`). */
  path: string;
  access: Access;
  /** Status of a permitted call. */
  success: number;
  body: BodySpec;
  query?: QuerySpec;
  /** Makes the resources one permitted call needs in `org` (as its owner) and returns that call. */
  prepare(world: SecurityWorld, org: OrgContext): Promise<PreparedCall>;
  /**
   * Tables a call rejected for its content may still change by design (an upload refused for
   * its archive marks its version errored and spends its URL).
   */
  rejectionMayChange?: string[];
}

export const API = '/api/v2';
export const org = (requirement: OrgRequirement): Access => ({ kind: 'org', requirement });
export const PUBLIC: Access = { kind: 'public' };
export const SITE_ADMIN: Access = { kind: 'site-admin' };
export const AUTHENTICATED: Access = { kind: 'authenticated' };

export const NO_BODY: BodySpec = { shape: 'none' };
/** A list: paginated, and `include` is read (lists that include nothing refuse every value). */
export const LIST: QuerySpec = { paginated: true, include: true };
/** A show that includes nothing: any `include` value is refused. */
export const SHOW: QuerySpec = { include: true };

export const document = (
  type: string,
  attributes: Record<string, unknown>,
  relationships?: Record<string, unknown>,
) => ({
  data: { type, attributes, ...(relationships ? { relationships } : {}) },
});
export const identifiers = (type: string, ids: string[]) => ({ data: ids.map((id) => ({ type, id })) });

/** The capability token: the last path segment of an upload URL. */
export const uploadToken = (uploadUrl: string): string => new URL(uploadUrl).pathname.split('/').pop()!;

/** `/api/v2/policy-sets/:id` with the params filled in (percent-encoded). */
export function concretePath(endpoint: Pick<Endpoint, 'path'>, params: Record<string, string>): string {
  return endpoint.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for :${name} in ${endpoint.path}`);
    return encodeURIComponent(value);
  });
}

export const endpointLabel = (e: Pick<Endpoint, 'method' | 'path'>) => `${e.method} ${e.path}`;
