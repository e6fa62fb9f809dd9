import type { runsV1 } from '@policyhub/contracts';

/*
 * The engine executable contract (docs/evaluator.md): one JSON request on stdin, one JSON
 * result on stdout, exit status 0. Version 1.
 */

export const CONTRACT_VERSION = 1;

export interface EngineRequest {
  contract_version: number;
  policy_check_id: string;
  run_id: string;
  organization: string;
  workspace_id: string;
  policy_sets: Array<{
    id: string;
    name: string;
    kind: string;
    parameters: Record<string, string>;
    version_id: string | null;
    /** The version's tar.gz archive, base64; null for sets of individual policies. */
    archive_base64: string | null;
    policies: Array<{ id: string; name: string; enforcement_level: string; code: string }>;
  }>;
  /** The plan JSON as the executor reported it. */
  plan: unknown;
}

export interface EngineOutcome {
  policySetId: string;
  policyName: string;
  passed: boolean;
  enforcementLevel: string;
  lines: string[];
}

export interface EngineResult {
  outcomes: EngineOutcome[];
  report: string | undefined;
  details: Record<string, unknown> | undefined;
}

export function buildEngineRequest(input: runsV1.GetPolicyCheckInputResponse__Output): EngineRequest {
  return {
    contract_version: CONTRACT_VERSION,
    policy_check_id: input.policyCheckId,
    run_id: input.runId,
    organization: input.organization,
    workspace_id: input.workspaceId,
    policy_sets: input.policySets.map((s) => ({
      id: s.id,
      name: s.name,
      kind: s.kind,
      parameters: { ...s.parameters },
      version_id: s.versionId || null,
      archive_base64: s.archive.length > 0 ? Buffer.from(s.archive).toString('base64') : null,
      policies: s.policies.map((p) => ({
        id: p.id,
        name: p.name,
        enforcement_level: p.enforcementLevel,
        code: p.code,
      })),
    })),
    plan: JSON.parse(Buffer.from(input.planJson).toString('utf8')),
  };
}

/** Reads the engine's stdout; throws an Error saying what is wrong with it. */
export function parseEngineResult(stdout: string): EngineResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`the engine's output is not JSON: ${preview(stdout)}`);
  }
  if (!isObject(parsed)) throw new Error('the engine\'s output must be a JSON object {"policies": [...]}');
  if (!Array.isArray(parsed.policies)) throw new Error('the engine\'s output has no "policies" array');
  const outcomes = parsed.policies.map((p: unknown, i: number): EngineOutcome => {
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
