/**
 * Every wire name that differs between this product's vocabulary (the spec's) and upstream's,
 * in one table, so another profile can be added at the edge later (DESIGN §1). Services speak
 * the canonical names; only the gateway translates.
 */
export const VOCABULARY = {
  canonical: {
    policyKinds: { kindA: 'kind_a', kindB: 'kind_b' },
    /** Key of the engine hash inside a policy check's `result`. */
    policyCheckEngineKey: 'kind_a',
    applyTimeoutAlias: 'engine-build-worker-apply-timeout',
    planTimeoutAlias: 'engine-build-worker-plan-timeout',
    workerSudoEnabled: 'engine-worker-sudo-enabled',
  },
  upstream: {
    policyKinds: { kindA: 'sentinel', kindB: 'opa' },
    policyCheckEngineKey: 'sentinel',
    applyTimeoutAlias: 'terraform-build-worker-apply-timeout',
    planTimeoutAlias: 'terraform-build-worker-plan-timeout',
    workerSudoEnabled: 'terraform-worker-sudo-enabled',
  },
} as const;

/** The profile served today: the spec's canonical names. */
export const WIRE = VOCABULARY.canonical;
