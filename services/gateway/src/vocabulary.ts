/**
 * Every wire name that differs between this product's vocabulary (the spec's) and upstream's,
 * in one table (ADR 0020). Services speak the canonical names, which are the spec's; only the
 * gateway translates, and only at the edge: serializers emit the canonical names and
 * `translateDocument` (plugins/vocabulary.ts) turns them into the served profile's. Input is
 * read in either vocabulary whatever the profile (docs/adr/0020-vocabulary-profiles.md).
 */
export const VOCABULARY_PROFILES = ['spec', 'tfe'] as const;
export type VocabularyProfile = (typeof VOCABULARY_PROFILES)[number];

export interface WireNames {
  /** Canonical policy kind → its wire spelling. */
  policyKinds: { kind_a: string; kind_b: string };
  /** Key of the engine hash inside a policy check's `result`. */
  policyCheckEngineKey: string;
  /** Framework named in the first line of a policy check's standard text report (`<name> Result: …`). */
  policyCheckReportFramework: string;
  applyTimeoutAlias: string;
  planTimeoutAlias: string;
  workerSudoEnabled: string;
  /**
   * Upstream's leniency around the agent attributes of policy sets (ADR 0020):
   * `policy-tool-version` and `overridable` sent for a non-agent kind_a set are accepted and
   * ignored, `agent-enabled: true` on a kind_b set too; a non-agent kind_a set answers
   * `overridable: null` and `policy-tool-version: ""`, a kind_b set `agent-enabled: true`.
   */
  agentLeniency: boolean;
}

/** The spec's names, literally typed: the serializers' (and their schemas') key names. */
const SPEC = {
  policyKinds: { kind_a: 'kind_a', kind_b: 'kind_b' },
  policyCheckEngineKey: 'kind_a',
  policyCheckReportFramework: 'kind_a',
  applyTimeoutAlias: 'engine-build-worker-apply-timeout',
  planTimeoutAlias: 'engine-build-worker-plan-timeout',
  workerSudoEnabled: 'engine-worker-sudo-enabled',
  agentLeniency: false,
} as const satisfies WireNames;

export const VOCABULARY: Record<VocabularyProfile, WireNames> = {
  spec: SPEC,
  tfe: {
    policyKinds: { kind_a: 'sentinel', kind_b: 'opa' },
    policyCheckEngineKey: 'sentinel',
    policyCheckReportFramework: 'Sentinel',
    applyTimeoutAlias: 'terraform-build-worker-apply-timeout',
    planTimeoutAlias: 'terraform-build-worker-plan-timeout',
    workerSudoEnabled: 'terraform-worker-sudo-enabled',
    agentLeniency: true,
  },
};

/** The names services and serializers speak (the spec's). */
export const CANONICAL = SPEC;

export type CanonicalKind = keyof WireNames['policyKinds'];

/** Every spelling of each kind, in any profile → the canonical kind. */
const KIND_SPELLINGS = new Map<string, CanonicalKind>(
  Object.values(VOCABULARY).flatMap((names) =>
    (Object.entries(names.policyKinds) as Array<[CanonicalKind, string]>).map(([canonical, wire]) => [
      wire,
      canonical,
    ]),
  ),
);

/**
 * A kind as a client sent it (either vocabulary) → the canonical kind. Unknown spellings pass
 * through unchanged; resources/policy-sets/words.ts answers them with a 422.
 */
export const canonicalKind = (wire: string): string => KIND_SPELLINGS.get(wire) ?? wire;

/** A canonical kind in the names of `names`; anything else unchanged. */
export const wireKind = (kind: string, names: WireNames): string =>
  Object.hasOwn(names.policyKinds, kind) ? names.policyKinds[kind as CanonicalKind] : kind;

/** The names under which a client may send one attribute, first the canonical one. */
export const spellingsOf = (pick: (names: WireNames) => string): string[] => [
  ...new Set(VOCABULARY_PROFILES.map((p) => pick(VOCABULARY[p]))),
];
