import { AppError, type ErrorItem } from '@policyhub/errors';
import type { ErrorObject } from 'ajv';

/**
 * Route-schema validation failures → the JSON:API 422 clients have always received (ADR 0028):
 * the same `detail` wording and `source.pointer` as the upstream API, taken from the `x-`
 * annotations the schema builders (`schemas/jsonapi.ts`) put on each node. Rules, as the readers
 * applied them before the schemas existed:
 * - the envelope (`data`, `data.type`, `attributes`, `relationships`) is checked first and only
 *   its first problem is reported;
 * - otherwise every attribute problem is reported, one per attribute and one per relationship
 *   element (for an element, its own shape first, then `type`, then `id`), in the document's order;
 * - a list that is too long is reported once, without its elements' problems.
 * Errors on nodes without wording (none today) are left to the resource's reader.
 */

type Node = Record<string, unknown>;

interface Problem {
  pointer: string;
  detail: string;
  envelope: boolean;
}

const ENVELOPE_ORDER = ['/data', '/data/type', '/data/attributes', '/data/relationships'];

export function bodyValidationError(errors: readonly ErrorObject[], root: Node): AppError | undefined {
  const problems = errors.flatMap(toProblems);
  if (problems.length === 0) return undefined;
  const envelope = problems.filter((p) => p.envelope).sort((a, b) => rank(a.pointer) - rank(b.pointer))[0];
  if (envelope) return invalid([envelope]);

  const tooMany = problems.filter((p) => p.detail.startsWith('too many elements'));
  const kept = problems.filter((p) => !tooMany.some((t) => t !== p && p.pointer.startsWith(`${t.pointer}/`)));
  const order = documentOrder(root);
  const byScope = new Map<string, Problem>();
  for (const p of kept.sort((a, b) => compare(a, b, order))) {
    const scope = scopeOf(p.pointer);
    if (!byScope.has(scope)) byScope.set(scope, p);
  }
  return invalid([...byScope.values()]);
}

function toProblems(error: ErrorObject): Problem[] {
  const parent = (error.parentSchema ?? {}) as Node;
  let node = parent;
  let pointer = error.instancePath;
  let blank = false;
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    node = ((parent.properties as Record<string, Node> | undefined)?.[missing] ?? {}) as Node;
    pointer = `${pointer}/${escapePointer(missing)}`;
    blank = true;
  }
  // `attributes` absent or null while some are required: each required attribute is blank.
  if (node['x-members-required'] === true && (blank || (error.keyword === 'type' && error.data === null))) {
    const members = (node.properties ?? {}) as Record<string, Node>;
    return ((node.required ?? []) as string[]).flatMap((name) => {
      const detail = members[name]?.['x-blank'];
      return typeof detail === 'string'
        ? [{ pointer: `${pointer}/${escapePointer(name)}`, detail, envelope: false }]
        : [];
    });
  } else if (error.keyword === 'minLength') {
    blank = true;
  } else if (error.data === null && node['x-null-blank'] === true) {
    blank = true;
  }
  let detail: unknown;
  switch (error.keyword) {
    case 'maxLength':
      detail = node['x-too-long'];
      break;
    case 'minimum':
    case 'maximum':
      detail = node['x-range'];
      break;
    case 'maxItems':
      detail = node['x-too-many'];
      break;
    default:
      detail = (blank ? node['x-blank'] : undefined) ?? node['x-detail'];
  }
  if (typeof detail !== 'string') return [];
  if (node['x-at-parent'] === true && error.keyword !== 'maxItems') pointer = parentPointer(pointer);
  if (typeof node['x-pointer'] === 'string') pointer = node['x-pointer'];
  return [{ pointer, detail, envelope: node['x-envelope'] === true }];
}

const rank = (pointer: string): number => {
  const i = ENVELOPE_ORDER.indexOf(pointer);
  return i === -1 ? ENVELOPE_ORDER.length : i;
};

/** The unit a reader reported at most one problem for. */
function scopeOf(pointer: string): string {
  const attribute = /^\/data\/attributes\/[^/]+/.exec(pointer);
  if (attribute) return attribute[0];
  const element =
    /^\/data\/relationships\/[^/]+\/data\/\d+/.exec(pointer) ??
    /^\/data\/relationships\/[^/]+\/data(?=\/|$)/.exec(pointer) ??
    /^\/data\/\d+/.exec(pointer);
  if (element) return element[0];
  return pointer;
}

/** Attributes in the schema's order, then relationships; within an element: itself, type, id. */
function documentOrder(root: Node): Map<string, number> {
  const data = ((root.properties as Record<string, Node> | undefined)?.data ?? {}) as Node;
  const members = (data.properties ?? {}) as Record<string, Node>;
  const order = new Map<string, number>();
  for (const part of ['attributes', 'relationships']) {
    for (const name of Object.keys((members[part]?.properties ?? {}) as Node)) {
      order.set(`/data/${part}/${escapePointer(name)}`, order.size);
    }
  }
  return order;
}

function compare(a: Problem, b: Problem, order: Map<string, number>): number {
  const key = (p: Problem): number[] => {
    const top = /^\/data\/(?:attributes|relationships)\/[^/]+/.exec(p.pointer)?.[0];
    const index = /\/(\d+)(?:\/|$)/.exec(p.pointer);
    const leaf = p.pointer.endsWith('/type') ? 1 : p.pointer.endsWith('/id') ? 2 : 0;
    return [top === undefined ? -1 : (order.get(top) ?? order.size), index ? Number(index[1]) : -1, leaf];
  };
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! - kb[i]!;
  return 0;
}

const parentPointer = (pointer: string): string => pointer.slice(0, pointer.lastIndexOf('/'));

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

const invalid = (items: Problem[]): AppError =>
  new AppError(
    'invalid',
    'GATEWAY_INVALID_BODY',
    items.map(({ pointer, detail }): ErrorItem => ({ title: 'invalid attribute', detail, pointer })),
  );
