import type { EngineInput } from '../engine.js';

/*
 * The engine executable contract (docs/evaluator.md): one JSON request on stdin, one JSON
 * result on stdout, exit status 0. Version 2: the plan and the archives are files in a private
 * working directory (they can be far larger than a JSON string should be), named by path.
 */

export const CONTRACT_VERSION = 2;

export interface EngineRequest {
  contract_version: number;
  policy_check_id: string;
  run_id: string;
  organization: string;
  workspace_id: string;
  run: { created_at: string; message: string; plan_only: boolean };
  /** A private directory (0700) the engine may write to; removed after the check. */
  work_dir: string;
  /** The plan JSON as the executor reported it. */
  plan_path: string;
  policy_sets: Array<{
    id: string;
    name: string;
    kind: string;
    parameters: Record<string, string>;
    version_id: string | null;
    /** The version's tar.gz as stored; null for sets of individual policies. */
    archive_path: string | null;
    /** The same archive, extracted (safely) into this directory; null without an archive. */
    archive_dir: string | null;
    /** The archive directory holding the framework's configuration file ('' for the root). */
    policies_path: string;
    /**
     * For kind_a archives: the policies its sentinel.hcl declares (each needs an outcome, with
     * this level); null otherwise.
     */
    archive_policies: Array<{ name: string; enforcement_level: string; source: string }> | null;
    policies: Array<{ id: string; name: string; enforcement_level: string; code: string }>;
  }>;
}

/** One entry of the engine's `policies` answer. */
export interface ContractOutcome {
  policySetId: string;
  policyName: string;
  passed: boolean;
  /** What the engine said, '' when nothing; the request's levels are the ones that count. */
  enforcementLevel: string;
  lines: string[];
}

export interface ContractResult {
  outcomes: ContractOutcome[];
  report: string | undefined;
  details: Record<string, unknown> | undefined;
}

/** A kind_a archive's declared policies (its sentinel.hcl), by set id. */
export type DeclaredArchivePolicies = ReadonlyMap<
  string,
  ReadonlyArray<{ name: string; enforcementLevel: string; source: string }>
>;

export function buildEngineRequest(input: EngineInput, declared: DeclaredArchivePolicies): EngineRequest {
  return {
    contract_version: CONTRACT_VERSION,
    policy_check_id: input.checkId,
    run_id: input.run.id,
    organization: input.run.organization.name,
    workspace_id: input.run.workspace.id,
    run: { created_at: input.run.createdAt, message: input.run.message, plan_only: input.run.speculative },
    work_dir: input.workDir,
    plan_path: input.planFile,
    policy_sets: input.sets.map((s) => ({
      id: s.id,
      name: s.name,
      kind: s.kind,
      parameters: { ...s.parameters },
      version_id: s.versionId ?? null,
      archive_path: s.archive?.file ?? null,
      archive_dir: s.archive?.dir ?? null,
      policies_path: s.archive?.policiesPath ?? '',
      archive_policies:
        declared.get(s.id)?.map((p) => ({
          name: p.name,
          enforcement_level: p.enforcementLevel,
          source: p.source,
        })) ?? null,
      policies: s.policies.map((p) => ({
        id: p.id,
        name: p.name,
        enforcement_level: p.enforcementLevel,
        code: p.code,
      })),
    })),
  };
}

/** Reads the engine's stdout; throws an Error saying what is wrong with it. */
export function parseEngineResult(stdout: string): ContractResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`the engine's output is not JSON: ${preview(stdout)}`);
  }
  if (!isObject(parsed)) throw new Error('the engine\'s output must be a JSON object {"policies": [...]}');
  if (!Array.isArray(parsed.policies)) throw new Error('the engine\'s output has no "policies" array');
  const outcomes = parsed.policies.map((p: unknown, i: number): ContractOutcome => {
    const at = `policies[${i}]`;
    if (!isObject(p)) throw new Error(`${at} must be an object`);
    if (typeof p.policy_set_id !== 'string' || p.policy_set_id === '')
      throw new Error(`${at}.policy_set_id must be a string`);
    if (typeof p.policy !== 'string' || p.policy === '')
      throw new Error(`${at}.policy must be the policy's name`);
    if (typeof p.passed !== 'boolean') throw new Error(`${at}.passed must be true or false`);
    if (p.enforcement_level !== undefined && typeof p.enforcement_level !== 'string') {
      throw new Error(`${at}.enforcement_level must be a string`);
    }
    const output = p.output ?? [];
    if (!Array.isArray(output) || output.some((l) => typeof l !== 'string'))
      throw new Error(`${at}.output must be a list of strings`);
    return {
      policySetId: p.policy_set_id,
      policyName: p.policy,
      passed: p.passed,
      enforcementLevel: (p.enforcement_level as string | undefined) ?? '',
      lines: output as string[],
    };
  });
  if (parsed.report !== undefined && parsed.report !== null && typeof parsed.report !== 'string') {
    throw new Error('the engine\'s "report" must be a string');
  }
  if (parsed.details !== undefined && parsed.details !== null && !isObject(parsed.details)) {
    throw new Error('the engine\'s "details" must be a JSON object');
  }
  return {
    outcomes,
    report: typeof parsed.report === 'string' && parsed.report.trim() !== '' ? parsed.report : undefined,
    details: isObject(parsed.details) ? parsed.details : undefined,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const preview = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s || '(empty)');
