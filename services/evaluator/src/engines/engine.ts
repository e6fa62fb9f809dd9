import { join } from 'node:path';

/*
 * The engine interface: what the evaluator hands a policy engine and what it takes back
 * (docs/adr/0043-policy-engines-and-opa-adapter.md). The worker prepares the input (plan and
 * archives streamed from runs into a private directory), picks the engine for each set's kind
 * from the registry, and turns the outcomes into what runs' protocol carries. Engines know their
 * framework (files, CLI, result format) and nothing of runs or gRPC.
 */

/** A policy framework, in the spec's words (upstream: `sentinel`, `opa`). */
export type PolicyKind = 'kind_a' | 'kind_b';

/** kind_a's levels are advisory, soft-mandatory and hard-mandatory; kind_b's advisory and mandatory. */
export type EnforcementLevel = 'advisory' | 'soft-mandatory' | 'hard-mandatory' | 'mandatory';

const LEVELS: readonly string[] = ['advisory', 'soft-mandatory', 'hard-mandatory', 'mandatory'];
export const isEnforcementLevel = (v: unknown): v is EnforcementLevel =>
  typeof v === 'string' && LEVELS.includes(v);

/** What PolicyHub knows about the run; each engine exposes it the way its framework documents. */
export interface RunFacts {
  id: string;
  /** ISO-8601 UTC. */
  createdAt: string;
  message: string;
  /** A plan-only (speculative) run. */
  speculative: boolean;
  /** A destroy run; undefined when runs does not say (a runs service from before it did). */
  isDestroy?: boolean | undefined;
  organization: { name: string };
  workspace: { id: string; name?: string | undefined };
}

/** A policy uploaded on its own (`PUT /policies/:id/upload`) and attached to the set. */
export interface IndividualPolicy {
  id: string;
  name: string;
  enforcementLevel: EnforcementLevel;
  /** The source as uploaded; '' when none was (the engine reports it errored, never passed). */
  code: string;
  /** kind_b: the query naming the rule whose value decides (`data.terraform.policies.deny`). */
  query?: string | undefined;
}

/** A policy block of a versioned set's configuration file, as storage recorded it at upload. */
export interface DeclaredArchivePolicy {
  name: string;
  enforcementLevel: EnforcementLevel;
  /** kind_a: `source` as written, relative to the configuration file. */
  source: string;
  /** kind_b: the query naming the rule that decides. */
  query: string;
  description: string;
}

/**
 * What a versioned set's archive declares, read once by storage when it was uploaded and carried
 * in the check's input: engines run exactly these policies with these levels, and never parse the
 * configuration file for them.
 */
export interface ArchiveDeclaration {
  /** The configuration file, as an archive path (for messages). */
  configPath: string;
  policies: DeclaredArchivePolicy[];
  /** kind_a: the configuration's blocks in hcl2json's shape (modules, imports, params, mocks, …). */
  sentinelBlocks: Record<string, unknown>;
}

/** A versioned set's archive in the check's working directory. */
export interface PreparedArchive {
  /** The tar.gz as stored. */
  file: string;
  /** The same archive, extracted (files 0600, directories 0700, paths checked). */
  dir: string;
  /** The directory inside `dir` holding the framework's configuration file ('' for the root). */
  policiesPath: string;
}

/** The directory of an extracted archive that holds the framework's configuration. */
export const configurationDir = (archive: PreparedArchive): string =>
  archive.policiesPath ? join(archive.dir, ...archive.policiesPath.split('/')) : archive.dir;

/** A file of that directory as the archive names it (for messages): `prod/sentinel.hcl`. */
export const archivePath = (archive: PreparedArchive, file: string): string =>
  archive.policiesPath ? `${archive.policiesPath}/${file}` : file;

/** One applicable policy set, as the engine gets it. */
export interface PreparedPolicySet {
  id: string;
  name: string;
  kind: PolicyKind;
  /** Set parameters, key → value (Sentinel params; OPA has none). */
  parameters: Record<string, string>;
  /** The set's `policy-tool-version`; undefined means `latest`. */
  toolVersion?: string | undefined;
  /** Sets of individual policies. */
  policies: IndividualPolicy[];
  /** Versioned sets: the archive of the version that is current for the check. */
  archive?: PreparedArchive | undefined;
  /** Versioned sets: what the archive declares (set whenever `archive` is). */
  declaration?: ArchiveDeclaration | undefined;
  versionId?: string | undefined;
}

export interface EngineInput {
  /** The policy check (or evaluation) this is for; engines put it in logs and details only. */
  checkId: string;
  run: RunFacts;
  /** The plan JSON (`terraform show -json`), exactly as reported and checked. */
  planFile: string;
  /** A private directory (0700) for this engine alone; removed with the check's. */
  workDir: string;
  /** The sets of the kinds this engine was picked for. */
  sets: PreparedPolicySet[];
  /** What is left of the check's time limit: every process the engine starts shares it. */
  timeoutMs: number;
  /** Aborted when the lease is lost: stop at once, nothing will be reported. */
  signal: AbortSignal;
}

/** `errored`: the policy could not be evaluated (its code, its query, the engine); never a pass. */
export type PolicyResult = 'passed' | 'failed' | 'errored';

export interface PolicyOutcome {
  policySetId: string;
  /** The declared name: a listed policy's, or the label of the configuration's policy block. */
  policyName: string;
  /** The declared level; undefined for a policy the set does not declare (runs refuses it). */
  enforcementLevel: EnforcementLevel | undefined;
  result: PolicyResult;
  /** What explains the result: violation messages, print output, the error. */
  lines: string[];
  /** The report's heading shows this instead of the name (e.g. `restrict-s3.sentinel`). */
  heading?: string | undefined;
  /** kind_b: the query that was evaluated (policy evaluations show it). */
  query?: string | undefined;
  /** The policy's description, when its configuration gives one. */
  description?: string | undefined;
}

/**
 * An engine's answer: one outcome per declared policy of every set it was given (a policy it
 * cannot evaluate is `errored`, never left out; runs refuses outcomes that miss, repeat or invent
 * a policy), or an error for the whole run when the sets cannot be evaluated at all (a missing
 * configuration file, a crashed CLI).
 */
export type EngineRun =
  | {
      outcomes: PolicyOutcome[];
      /** Low-level output, kept opaque in the check's result (`result.kind_a`). */
      details?: Record<string, unknown> | undefined;
      /** A complete report of the engine's own (generic engine commands may send one). */
      report?: string | undefined;
    }
  | { error: string; output: string };

export interface PolicyEngine {
  /** `sentinel`, `opa`, `command`: in details and logs. */
  readonly name: string;
  /** One line for the start banner and logs: what runs, which version. */
  describe(): string;
  evaluate(input: EngineInput): Promise<EngineRun>;
}
