import { CommandEngine } from './command/command-engine.js';
import type { PolicyEngine, PolicyKind } from './engine.js';
import { detectOpa, OPA_DOWNLOADS } from './opa/opa-engine.js';
import { detectSentinel, SENTINEL_DOWNLOADS } from './sentinel/sentinel-engine.js';

type Entry = PolicyEngine | { problem: string };

const KIND_NAMES: Record<PolicyKind, string> = { kind_a: 'kind_a (Sentinel)', kind_b: 'kind_b (OPA)' };

/**
 * The engine for each policy kind, found once at start (a worker is restarted to pick up a new
 * install). A third engine is one more entry here and one more folder under `engines/`.
 */
export class EngineRegistry {
  private constructor(
    private readonly byKind: ReadonlyMap<PolicyKind, Entry>,
    private readonly forEveryKind: PolicyEngine | undefined,
  ) {}

  /** One engine per kind, or why there is none. */
  static of(entries: Record<PolicyKind, Entry>): EngineRegistry {
    return new EngineRegistry(new Map(Object.entries(entries) as Array<[PolicyKind, Entry]>), undefined);
  }

  /** One engine for every kind (EVALUATOR_COMMAND). */
  static everyKind(engine: PolicyEngine): EngineRegistry {
    return new EngineRegistry(new Map(), engine);
  }

  /** The engine for a kind, or the explanation a check gets when there is none. */
  engineFor(kind: string): PolicyEngine | { missing: string } {
    if (this.forEveryKind) return this.forEveryKind;
    const entry = this.byKind.get(kind as PolicyKind);
    if (entry && !('problem' in entry)) return entry;
    return { missing: missingEngineMessage(kind, entry?.problem) };
  }

  /** One line per kind for banners and logs. */
  describe(): string[] {
    if (this.forEveryKind) return [`every kind: ${this.forEveryKind.describe()}`];
    return [...this.byKind].map(([kind, entry]) =>
      'problem' in entry
        ? `${kind}: no engine (${entry.problem}); ${WITHOUT_ENGINE[kind] ?? `${kind} sets`} end errored and stop their runs until one is installed`
        : `${kind}: ${entry.describe()}`,
    );
  }
}

/**
 * The engines the environment provides: EVALUATOR_COMMAND for every kind when set; otherwise the
 * Sentinel CLI (SENTINEL_BIN or `sentinel` on PATH) for kind_a and the OPA CLI (OPA_BIN or `opa`
 * on PATH) for kind_b.
 */
export async function detectEngines(
  env: Record<string, string | undefined>,
  command: string[] | undefined,
): Promise<EngineRegistry> {
  if (command) return EngineRegistry.everyKind(new CommandEngine(command));
  const [sentinel, opa] = await Promise.all([detectSentinel(env), detectOpa(env)]);
  return EngineRegistry.of({ kind_a: sentinel, kind_b: opa });
}

/** What ends errored when a kind has no engine (banner wording). */
const WITHOUT_ENGINE: Partial<Record<PolicyKind, string>> = {
  kind_a: 'policy checks and agent-mode policy evaluations of kind_a sets',
  kind_b: 'policy evaluations of kind_b sets',
};

/** The explanation a check gets when no engine can evaluate one of its kinds. */
export function missingEngineMessage(kind: string, problem: string | undefined): string {
  const name = KIND_NAMES[kind as PolicyKind] ?? kind;
  const ownEngine = 'or set EVALUATOR_COMMAND to an engine of your own (docs/policy-evaluation.md).';
  if (kind === 'kind_a') {
    return (
      `no policy engine for ${name} policy sets: the Sentinel CLI was not found (${problem}). ` +
      `Install it: download the official release for your platform from ${SENTINEL_DOWNLOADS}, check its SHA256SUMS, ` +
      'unzip the `sentinel` binary into a directory on PATH (or set SENTINEL_BIN to its absolute path), and restart the ' +
      `evaluator; ${ownEngine}`
    );
  }
  if (kind === 'kind_b') {
    return (
      `no policy engine for ${name} policy sets: the OPA CLI was not usable (${problem}). ` +
      `Install it: download the \`opa\` binary (1.0 or later) for your platform from ${OPA_DOWNLOADS}, check its ` +
      'SHA-256, put it in a directory on PATH (or set OPA_BIN to its absolute path), and restart the evaluator; ' +
      ownEngine
    );
  }
  return `no policy engine for ${name} policy sets: PolicyHub knows no engine for this kind.`;
}
