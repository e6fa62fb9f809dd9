import { ValidationErrors } from '@policyhub/errors';
import { checkName } from './names.js';
import {
  DEFAULT_ENFORCEMENT_LEVEL,
  DEFAULT_KIND,
  ENFORCEMENT_LEVELS_BY_KIND,
  type EnforcementLevel,
  type Kind,
} from './vocabulary.js';

/** A policy's own fields, as stored; null = not set. */
export interface PolicyFields {
  name: string;
  description: string | null;
  kind: Kind;
  query: string | null;
  enforcementLevel: EnforcementLevel;
  enforcePath: string | null;
}

/**
 * What a client sent; undefined = not given, null = clear. `enforceMode`/`enforcePath` are the
 * deprecated form.
 */
export interface PolicyInput {
  name?: string | undefined;
  description?: string | null | undefined;
  kind?: Kind | undefined;
  query?: string | null | undefined;
  enforcementLevel?: EnforcementLevel | undefined;
  enforcePath?: string | null | undefined;
  enforceMode?: EnforcementLevel | undefined;
}

/** Upstream's limit on a policy's code: 10 MB (here 10 MiB, 10,485,760 bytes). */
export const POLICY_CODE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * Validates a new policy and fills in defaults (kind_a; the kind's default level when none is
 * given).
 */
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

  const kind: Kind = current?.kind ?? input.kind ?? DEFAULT_KIND;
  if (current && input.kind !== undefined && input.kind !== current.kind) {
    errors.add('POLICY_SETS_KIND_IMMUTABLE', 'kind', 'Kind cannot be changed after creation');
  }

  // As upstream: a kind_b policy needs its query; a kind_a one accepts a query and ignores it.
  let query: string | null = null;
  if (kind === 'kind_b') {
    query = input.query !== undefined ? input.query : (current?.query ?? null);
    if (query === null || query.trim() === '') {
      errors.add('POLICY_SETS_QUERY_REQUIRED', 'query', "Query can't be blank for kind_b policies");
    }
  }

  // `enforcement-level` wins over the deprecated `enforce[0].mode`.
  const level = input.enforcementLevel ?? input.enforceMode ?? current?.enforcementLevel;
  const allowed = ENFORCEMENT_LEVELS_BY_KIND[kind];
  if (level !== undefined && !allowed.includes(level)) {
    const field =
      input.enforcementLevel === undefined && input.enforceMode !== undefined
        ? 'enforce[0].mode'
        : 'enforcement_level';
    errors.add(
      'POLICY_SETS_INVALID_ENFORCEMENT_LEVEL',
      field,
      `Enforcement level ${level} is not valid for ${kind} policies: use ${allowed.join(', ')}`,
    );
  }
  const enforcePath = input.enforcePath !== undefined ? input.enforcePath : (current?.enforcePath ?? null);

  errors.throwIfAny();
  return {
    name,
    description: input.description !== undefined ? input.description : (current?.description ?? null),
    kind,
    query,
    enforcementLevel: level ?? DEFAULT_ENFORCEMENT_LEVEL[kind],
    enforcePath,
  };
}
