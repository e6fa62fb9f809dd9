import type { ErrorItem } from '@policyhub/errors';

/**
 * Services name the fields of their errors in domain terms, the names of their gRPC requests
 * (BadRequest.FieldViolation.field); this is the one place that turns them into JSON:API
 * `source` members in wire names (docs/errors.md, docs/adr/0030):
 * - `name`, `enforcement_level`, `vcs_repo.identifier`, `enforce[0].mode` →
 *   `/data/attributes/name`, `/data/attributes/enforcement-level`, … (kebab-case);
 * - a relationship (`policies`, `workspace_exclusions`, `configuration_version.id`) →
 *   `/data/relationships/policies`, …, `/data/relationships/configuration-version/data/id`;
 * - `ids` (the list of a relationship endpoint's body) and the fields below → their pointer;
 * - `filter.kind` → the query parameter `filter[kind]`;
 * - a field starting with `/` is already a pointer into a request document that is not JSON:API
 *   (a Terraform plan) and passes through.
 * Kind names inside details are translated with the rest of the document (plugins/vocabulary.ts).
 */
const RELATIONSHIPS = new Set([
  'policies',
  'workspaces',
  'projects',
  'workspace_exclusions',
  'project',
  'workspace',
  'configuration_version',
]);

/** Fields whose place in the document is not derived from their name. */
const FIXED_POINTERS = new Map<string, string>([
  // The relationship endpoints' body: `{"data": [identifiers]}`.
  ['ids', '/data'],
  // Module consumers PATCH: `{"data": [organizations]}`.
  ['consumers', '/data'],
  // Registry partnerships PUT: neither list given.
  ['partnerships', '/data/attributes'],
]);

const kebab = (segment: string): string => segment.replaceAll('_', '-');

/** `vcs_repo.identifier`, `enforce[0].mode` → its segments (`enforce`, `0`, `mode`). */
const segmentsOf = (field: string): string[] =>
  field.split(/\.|\[(\d+)\]\.?/).filter((s) => s !== undefined && s !== '');

export type ErrorSource = { pointer: string } | { parameter: string };

export function sourceOfField(field: string): ErrorSource | undefined {
  if (field === '') return undefined;
  if (field.startsWith('/')) return { pointer: field };
  const fixed = FIXED_POINTERS.get(field);
  if (fixed !== undefined) return { pointer: fixed };
  const [first, ...rest] = segmentsOf(field);
  if (first === undefined) return undefined;
  if (first === 'filter') return { parameter: `filter[${rest.join('.')}]` };
  if (RELATIONSHIPS.has(first)) {
    const tail = rest.map((s) => (s === 'id' ? 'data/id' : kebab(s)));
    return { pointer: ['/data/relationships', kebab(first), ...tail].join('/') };
  }
  return { pointer: ['/data/attributes', kebab(first), ...rest.map(kebab)].join('/') };
}

/** The JSON:API `source` of an error item: the gateway's own pointer or parameter, else its field. */
export function sourceOf(item: ErrorItem): ErrorSource | undefined {
  if (item.pointer) return { pointer: item.pointer };
  if (item.field) return sourceOfField(item.field);
  if (item.parameter) return { parameter: item.parameter };
  return undefined;
}
