import { ValidationErrors } from '@policyhub/errors';
import { checkName } from './names.js';
import {
  DEFAULT_ENFORCEMENT_LEVEL,
  DEFAULT_KIND,
  ENFORCEMENT_LEVELS,
  type EnforcementLevel,
  isEnforcementLevel,
  isKind,
  type Kind,
} from './vocabulary.js';

/** A policy's own fields, as stored. Empty optional strings are normalised to null. */
export interface PolicyFields {
  name: string;
  description: string | null;
  kind: Kind;
  query: string | null;
  enforcementLevel: EnforcementLevel;
  enforcePath: string | null;
}

/** What a client sent; undefined = not given. `enforceMode`/`enforcePath` are the deprecated form. */
export interface PolicyInput {
  name?: string | undefined;
  description?: string | undefined;
  kind?: string | undefined;
  query?: string | undefined;
  enforcementLevel?: string | undefined;
  enforcePath?: string | undefined;
  enforceMode?: string | undefined;
}

export const POLICY_CODE_MAX_BYTES = 1024 * 1024;

const nullIfEmpty = (v: string | undefined | null): string | null =>
  v === undefined || v === null || v === '' ? null : v;

/** Validates a new policy and fills in defaults (kind_a; soft-mandatory when no level is given). */
export function resolveNewPolicy(input: PolicyInput): PolicyFields {
  return resolve(undefined, input);
}

/** Applies a change to an existing policy; absent fields keep their values. */
export function resolvePolicyUpdate(current: PolicyFields, input: PolicyInput): PolicyFields {
  return resolve(current, input);
}

function resolve(current: PolicyFields | undefined, input: PolicyInput): PolicyFields {
  const errors = new ValidationErrors();
  const name = input.name ?? current?.name ?? '';
  if (input.name !== undefined || !current) checkName(errors, 'POLICY_SETS_INVALID_POLICY_NAME', name);

  const requestedKind =
    input.kind === undefined || input.kind === '' ? (current?.kind ?? DEFAULT_KIND) : input.kind;
  let kind: Kind = current?.kind ?? DEFAULT_KIND;
  if (!isKind(requestedKind)) {
    errors.add('POLICY_SETS_INVALID_KIND', 'kind', 'Kind must be kind_a or kind_b');
  } else if (current && requestedKind !== current.kind) {
    errors.add('POLICY_SETS_KIND_IMMUTABLE', 'kind', 'Kind cannot be changed after creation');
  } else {
    kind = requestedKind;
  }

  const query = input.query !== undefined ? nullIfEmpty(input.query) : (current?.query ?? null);
  if (query !== null && kind !== 'kind_b') {
    errors.add('POLICY_SETS_QUERY_REQUIRES_KIND_B', 'query', 'Query is only valid for kind_b policies');
  }

  const level = resolveLevel(current, input, errors);
  const enforcePath =
    input.enforcePath !== undefined ? nullIfEmpty(input.enforcePath) : (current?.enforcePath ?? null);

  errors.throwIfAny();
  return {
    name,
    description:
      input.description !== undefined ? nullIfEmpty(input.description) : (current?.description ?? null),
    kind,
    query,
    enforcementLevel: level ?? DEFAULT_ENFORCEMENT_LEVEL,
    enforcePath,
  };
}

/** `enforcement-level` wins over the deprecated `enforce[0].mode`; each is checked where it was sent. */
function resolveLevel(
  current: PolicyFields | undefined,
  input: PolicyInput,
  errors: ValidationErrors,
): EnforcementLevel | undefined {
  const allowed = `Enforcement level must be one of ${ENFORCEMENT_LEVELS.join(', ')}`;
  if (input.enforcementLevel !== undefined && input.enforcementLevel !== '') {
    if (isEnforcementLevel(input.enforcementLevel)) return input.enforcementLevel;
    errors.add('POLICY_SETS_INVALID_ENFORCEMENT_LEVEL', 'enforcement_level', allowed);
    return undefined;
  }
  if (input.enforceMode !== undefined && input.enforceMode !== '') {
    if (isEnforcementLevel(input.enforceMode)) return input.enforceMode;
    errors.add('POLICY_SETS_INVALID_ENFORCEMENT_LEVEL', 'enforce[0].mode', allowed);
    return undefined;
  }
  return current?.enforcementLevel;
}
