import { type EnumMapping, enforcementLevel, type policysetsV1, policyKind } from '@policyhub/contracts';
import { invalidAttribute } from '@policyhub/errors';
import { enumOf, field, write } from '../../schemas/resources.js';
import { canonicalKind, wireKind } from '../../vocabulary.js';

/**
 * The words clients send for the enums of policies and policy sets, read into enum values
 * (ADR 0035). An unknown word is answered here with the 422 the service gave before requests
 * carried enums (same code, detail and source); callers read inside `readAfterVisibilityCheck`
 * so that a caller who cannot see the resource still gets its 404 first.
 */
function read<P extends string>(
  mapping: EnumMapping<P, string>,
  word: string,
  code: Parameters<typeof invalidAttribute>[0],
  field: string,
  detail: string,
): P {
  const value = mapping.fromWord(word);
  if (value !== undefined) return value;
  throw invalidAttribute(code, field, detail);
}

/** A `kind` attribute in either vocabulary. */
export const readKind = (wire: string): policysetsV1.PolicyKind__Output =>
  read(
    policyKind,
    canonicalKind(wire),
    'POLICY_SETS_INVALID_KIND',
    'kind',
    `Kind must be ${policyKind.words.join(' or ')}`,
  );

/** `filter[kind]` of the list endpoints; absent or empty = every kind. */
export const readKindFilter = (wire: string | undefined): policysetsV1.PolicyKind__Output | undefined =>
  wire
    ? read(
        policyKind,
        canonicalKind(wire),
        'POLICY_SETS_INVALID_FILTER',
        'filter.kind',
        `filter[kind] must be ${policyKind.words.join(' or ')}`,
      )
    : undefined;

/** `enforcement-level` (or the deprecated `enforce[0].mode`, `field` names which); empty = not given. */
export const readEnforcementLevel = (
  word: string | undefined,
  field: 'enforcement_level' | 'enforce[0].mode',
): policysetsV1.EnforcementLevel__Output | undefined =>
  word
    ? read(
        enforcementLevel,
        word,
        'POLICY_SETS_INVALID_ENFORCEMENT_LEVEL',
        field,
        `Enforcement level must be one of ${enforcementLevel.words.join(', ')}`,
      )
    : undefined;

/**
 * The `kind` attribute of policies and policy sets: served in the profile's word (`sentinel` for
 * kind_a in `tfe`), read in either vocabulary (`readKind`).
 */
export const policyKindField = field(enumOf(policyKind.words, 'Policy kind.'), {
  write: write.string({
    present: true,
    maxLength: 50,
    description: 'Policy kind: kind_a or kind_b (`sentinel`/`opa` are read too).',
  }),
  wording: {
    schema: (names) => enumOf(Object.values(names.policyKinds), 'Policy kind.'),
    value: (kind, names) => wireKind(kind as string, names),
  },
});
