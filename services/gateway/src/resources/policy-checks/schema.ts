import { policyCheckScope, policyCheckStatus } from '@policyhub/contracts';
import { Type } from '@sinclair/typebox';
import {
  Count,
  closed,
  defineResource,
  enumOf,
  field,
  hasOne,
  nullable,
  self,
  statusTimestamps,
  Timestamp,
} from '../../schemas/resources.js';
import { CANONICAL } from '../../vocabulary.js';

const ENGINE_OUTPUT = Type.Object(
  {},
  { additionalProperties: true, description: "The engine's own output, opaque to clients." },
);

const COUNTS = {
  result: Type.Boolean(),
  passed: Count,
  'total-failed': Count,
  'hard-failed': Count,
  'soft-failed': Count,
  'advisory-failed': Count,
  'duration-ms': Count,
  duration: Count,
};

/** `result`, with the engine's output under `engineKey` (the profile's framework name). */
const result = <K extends string>(engineKey: K) =>
  nullable(
    closed({ ...COUNTS, [engineKey]: ENGINE_OUTPUT } as typeof COUNTS & Record<K, typeof ENGINE_OUTPUT>),
  );

/** The same object with one key renamed, in the same key order. */
function renameKey(o: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(o)) out[key === from ? to : key] = value;
  return out;
}

/** The wire shape of `policy-checks` (read only; overriding takes a justification, not a document). */
export const POLICY_CHECK = defineResource({
  $id: 'PolicyCheck',
  type: 'policy-checks',
  description: 'A policy check of a run (result is null until evaluated).',
  attributes: {
    result: field(result(CANONICAL.policyCheckEngineKey), {
      wording: {
        schema: (names) => result(names.policyCheckEngineKey),
        value: (r, names) =>
          typeof r === 'object' && r !== null && !Array.isArray(r)
            ? renameKey(
                r as Record<string, unknown>,
                CANONICAL.policyCheckEngineKey,
                names.policyCheckEngineKey,
              )
            : r,
      },
    }),
    scope: enumOf(policyCheckScope.words),
    status: enumOf(policyCheckStatus.words),
    'status-timestamps': statusTimestamps('`queued-at`, `passed-at`, …'),
    actions: closed({ 'is-overridable': Type.Boolean() }),
    permissions: closed({ 'can-override': Type.Boolean() }),
    'created-at': Timestamp,
  },
  relationships: { run: hasOne('runs') },
  links: { ...self, output: Type.String() },
});
