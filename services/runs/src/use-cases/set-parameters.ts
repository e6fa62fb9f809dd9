import type { PolicySetSnapshot } from '../domain/evaluation.js';
import type { PolicySetSource } from '../domain/ports.js';

/**
 * A set's parameters as the engine gets them in the evaluator's input. Runs holds them only
 * while it answers the input call: they are not stored with the check or the evaluation, nor put
 * in any log line, event or error (sensitive values included; docs/adr/0055).
 */
export interface EngineParameters {
  /** key → value (sensitive values in the clear, for the engine). */
  values: Record<string, string>;
  /** Keys whose values are sensitive: the evaluator masks them in what it reports. */
  sensitive: string[];
}

const NONE: EngineParameters = Object.freeze({
  values: Object.freeze({}),
  sensitive: [],
}) as EngineParameters;

/**
 * The current parameters of the kind_a sets among `sets`, by set id, read from policy-sets now;
 * kind_b sets get none (OPA has no parameters, as upstream). One call for all the sets, none
 * when no kind_a set is there. A set that no longer exists has none. Checks and policy
 * evaluations both take their input through here.
 */
export async function engineParameters(
  source: PolicySetSource,
  organization: { name: string; id: string | null },
  sets: readonly Pick<PolicySetSnapshot, 'id' | 'kind'>[],
): Promise<(setId: string) => EngineParameters> {
  const ids = sets.filter((s) => s.kind === 'kind_a').map((s) => s.id);
  if (ids.length === 0) return () => NONE;
  const found = await source.parameterValues(organization, ids);
  const bySet = new Map<string, EngineParameters>();
  for (const id of ids) {
    const parameters = found.get(id) ?? [];
    bySet.set(id, {
      values: Object.fromEntries(parameters.map((p) => [p.key, p.value])),
      sensitive: parameters.filter((p) => p.sensitive).map((p) => p.key),
    });
  }
  return (setId) => bySet.get(setId) ?? NONE;
}
