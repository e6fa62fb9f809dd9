import { AppError, type ErrorItem } from '@policyhub/errors';
import { isObject, type RequestDocument } from '../../jsonapi/body.js';
import { canonicalKind } from '../../vocabulary.js';

export interface PolicyAttributes {
  name?: string | undefined;
  /** null = clear. */
  description?: string | null | undefined;
  kind?: string | undefined;
  query?: string | null | undefined;
  enforcementLevel?: string | undefined;
  enforcePath?: string | undefined;
  enforceMode?: string | undefined;
}

/**
 * Reads a policy's attributes (shape and JSON types only; the service owns the rules). The
 * deprecated `enforce: [{path, mode}]` form is accepted: its first element carries the level.
 */
export function readPolicyAttributes(doc: RequestDocument, options: { create: boolean }): PolicyAttributes {
  const name = doc.string('name', { required: options.create, present: true, maxLength: 200 });
  const description = doc.nullableString('description', { maxLength: 10_000 });
  const kind = doc.string('kind', { present: true, maxLength: 50 });
  const query = doc.nullableString('query', { maxLength: 10_000 });
  const enforcementLevel = doc.string('enforcement-level', { maxLength: 50 });
  doc.done();
  const enforce = readEnforce(doc.attributes.enforce);
  return {
    name,
    description,
    kind: kind === undefined ? undefined : canonicalKind(kind),
    query,
    enforcementLevel,
    enforcePath: enforce?.path,
    enforceMode: enforce?.mode,
  };
}

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
