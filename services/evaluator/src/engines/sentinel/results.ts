import { basename } from 'node:path';
import type { PolicyOutcome } from '../engine.js';
import type { LaidOutPolicy, SetLayout } from './layout.js';

/** One policy's result as `sentinel apply -json` reports it (fields the adapter reads). */
interface SentinelPolicyResult {
  policy?: unknown;
  result?: unknown;
  error?: unknown;
  allowed_failure?: unknown;
  trace?: { print?: unknown; rules?: unknown; error?: unknown } | null;
}

/** An outcome of the set: the configured policy's name, or what Sentinel called one it lacks. */
export type SetOutcome = Omit<PolicyOutcome, 'policySetId'>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the output of `sentinel apply -json` for one set:
 * `{"result": bool, "error": …, "policies": [{"policy": "<name or path>", "result": bool,
 * "error": …, "trace": {"print": "…", "rules": {"main": {"ident", "position", "value"}}}}]}`.
 * Each entry is matched to a configured policy by name or source path; an entry that matches
 * none keeps its own name (runs refuses it as not part of the check), and a configured policy
 * without an entry gets no outcome (runs refuses the report as incomplete). A policy passes
 * only when its result is `true`; a runtime error makes it `errored`, which a policy check counts
 * as a failure at its level, as upstream does.
 * Throws when the output is not such a document or reports an error for the whole apply.
 */
export function readApplyResult(stdout: string, layout: SetLayout): SetOutcome[] {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    throw new Error(`sentinel apply -json printed something that is not JSON: ${preview(stdout)}`);
  }
  if (!isObject(doc)) throw new Error('sentinel apply -json printed no JSON object');
  const entries = Array.isArray(doc.policies) ? (doc.policies as unknown[]) : undefined;
  if (!entries) {
    const error = doc.error ? `: ${describeError(doc.error)}` : '';
    throw new Error(`sentinel apply reported no policy results${error}`);
  }
  const order = new Map(layout.policies.map((p, i) => [p.name, i]));
  const rank = (o: SetOutcome) => order.get(o.policyName) ?? layout.policies.length;
  // In the configuration's order (the set's order for individual policies), unknown ones last.
  return entries
    .map((raw): SetOutcome => {
      const entry = (isObject(raw) ? raw : {}) as SentinelPolicyResult;
      const reported = typeof entry.policy === 'string' ? entry.policy : '';
      const policy = matchPolicy(reported, layout.policies);
      const error = entry.error ?? entry.trace?.error ?? null;
      const lines: string[] = [];
      if (error) lines.push(`ERROR - ${describeError(error)}`);
      const printed = typeof entry.trace?.print === 'string' ? entry.trace.print.trimEnd() : '';
      if (printed) lines.push(...printed.split('\n'));
      lines.push(...ruleLines(entry.trace?.rules));
      return {
        policyName: policy?.name ?? (reported || '(unnamed)'),
        enforcementLevel: policy?.enforcementLevel,
        result: error ? 'errored' : entry.result === true ? 'passed' : 'failed',
        heading: policy?.file ?? basename(reported || '(unnamed)'),
        lines,
      };
    })
    .sort((a, b) => rank(a) - rank(b));
}

const stripDot = (p: string) => p.replace(/^\.\//, '');

function matchPolicy(reported: string, policies: readonly LaidOutPolicy[]): LaidOutPolicy | undefined {
  if (!reported) return undefined;
  return (
    policies.find((p) => p.name === reported) ??
    policies.find((p) => stripDot(p.source) === stripDot(reported)) ??
    policies.find((p) => reported.endsWith(`/${stripDot(p.source)}`)) ??
    policies.find((p) => p.file === basename(reported) || `${p.name}.sentinel` === basename(reported))
  );
}

/** `TRUE - file:line:col - Rule "main"` lines, as upstream's log shows rules. */
function ruleLines(rules: unknown): string[] {
  if (!isObject(rules)) return [];
  const lines: string[] = [];
  for (const [name, raw] of Object.entries(rules)) {
    const rule = isObject(raw) ? raw : {};
    const pos = isObject(rule.position) ? rule.position : {};
    const where = pos.filename ? `${basename(String(pos.filename))}:${pos.line ?? 0}:${pos.column ?? 0}` : '';
    const ident = typeof rule.ident === 'string' ? rule.ident : name;
    const value = rule.value;
    const head = typeof value === 'boolean' ? String(value).toUpperCase() : 'VALUE';
    lines.push(`${head} - ${where ? `${where} - ` : ''}Rule "${ident}"`);
    if (typeof value !== 'boolean') lines.push(`  ${shown(value)}`);
  }
  return lines;
}

const describeError = (e: unknown): string =>
  typeof e === 'string' ? e : isObject(e) && typeof e.message === 'string' ? e.message : shown(e);

/** JSON.stringify recurses: a value nested too deep is described, not shown. */
function shown(value: unknown): string {
  try {
    return truncate(JSON.stringify(value) ?? 'undefined');
  } catch {
    return '(a value nested too deep to show)';
  }
}
const truncate = (s: string) => (s.length > 2000 ? `${s.slice(0, 2000)}…` : s);
const preview = (s: string) => (s.trim() === '' ? '(nothing)' : truncate(s.trim()).slice(0, 300));
