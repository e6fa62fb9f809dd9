import type { policysetsV1 } from '@policyhub/contracts';
import { AppError, type ErrorItem } from '@policyhub/errors';
import { isObject, type RequestDocument } from '../../jsonapi/body.js';
import { readEnforcementLevel, readKind } from '../policy-sets/words.js';

/** What a client sent; undefined = not given, null = clear (`""` clears too). */
export interface PolicyAttributes {
  name?: string | undefined;
  description?: string | null | undefined;
  kind?: policysetsV1.PolicyKind__Output | undefined;
  query?: string | null | undefined;
  enforcementLevel?: policysetsV1.EnforcementLevel__Output | undefined;
  enforcePath?: string | null | undefined;
  enforceMode?: policysetsV1.EnforcementLevel__Output | undefined;
}

/** `""` and null both clear a nullable text attribute. */
const clearable = (v: string | null | undefined): string | null | undefined => (v === '' ? null : v);

/**
 * Reads a policy's attributes (their route schema checked them; the service owns the rules) and
 * the deprecated `enforce: [{path, mode}]` form, whose members only this reader checks (its first
 * element carries the level).
 */
export function readPolicyAttributes(doc: RequestDocument): PolicyAttributes {
  const name = doc.string('name');
  const description = doc.nullableString('description');
  const kind = doc.string('kind');
  const query = doc.nullableString('query');
  const enforcementLevel = doc.string('enforcement-level');
  const enforce = readEnforce(doc.attributes.enforce);
  // `enforcement-level` wins over the deprecated `enforce[0].mode`, which is then not even read.
  const level = readEnforcementLevel(enforcementLevel, 'enforcement_level');
  return {
    name,
    description: clearable(description),
    kind: kind === undefined ? undefined : readKind(kind),
    query: clearable(query),
    enforcementLevel: level,
    enforcePath: clearable(enforce?.path),
    enforceMode: level === undefined ? readEnforcementLevel(enforce?.mode, 'enforce[0].mode') : undefined,
  };
}

/** The optional fields of a create request: null (or `""`) = not set. */
export const createPolicyFields = (a: PolicyAttributes) => ({
  name: a.name ?? '',
  description: a.description ?? undefined,
  kind: a.kind,
  query: a.query ?? undefined,
  enforcementLevel: a.enforcementLevel,
  enforcePath: a.enforcePath ?? undefined,
  enforceMode: a.enforceMode,
});

/** A nullable text attribute of an update: undefined = keep, null = clear. */
export const stringChange = (v: string | null | undefined): policysetsV1.StringChange | undefined =>
  v === undefined ? undefined : v === null ? {} : { value: v };

/** The fields of an update request. */
export const updatePolicyFields = (a: PolicyAttributes) => ({
  name: a.name,
  description: stringChange(a.description),
  kind: a.kind,
  query: stringChange(a.query),
  enforcementLevel: a.enforcementLevel,
  enforcePath: stringChange(a.enforcePath),
  enforceMode: a.enforceMode,
});

function readEnforce(value: unknown): { path?: string; mode?: string } | undefined {
  if (value === undefined || value === null) return undefined;
  const pointer = '/data/attributes/enforce';
  const errors: ErrorItem[] = [];
  const fail = (at: string, detail: string) =>
    errors.push({ title: 'invalid attribute', detail, pointer: at });
  if (!Array.isArray(value)) {
    fail(pointer, 'Enforce must be a list of {"path", "mode"} objects');
  } else if (value.length > 0) {
    const first = value[0];
    if (!isObject(first)) fail(`${pointer}/0`, 'must be an object {"path", "mode"}');
    else {
      if (first.path !== undefined && first.path !== null && typeof first.path !== 'string')
        fail(`${pointer}/0/path`, 'Path must be a string');
      if (typeof first.mode !== 'string') fail(`${pointer}/0/mode`, 'Mode must be a string');
    }
  }
  if (errors.length > 0) throw new AppError('invalid', 'GATEWAY_INVALID_BODY', errors);
  const first = (value as Array<{ path?: string | null; mode: string }>)[0];
  return first ? { path: first.path ?? undefined, mode: first.mode } : undefined;
}
