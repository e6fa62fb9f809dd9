import { evaluationPolicyKind, type runsV1 } from '@policyhub/contracts';
import type { CheckEvaluation } from './evaluate-check.js';

/** What a sensitive parameter's value is replaced with in anything the evaluator reports. */
export const MASK = '***';

/**
 * Values shorter than this are not masked: replacing every `on` or `1` of a report would make it
 * unreadable, and a value that short is no secret worth the name (docs/policy-evaluation.md).
 */
export const MIN_MASKED_LENGTH = 4;

/**
 * The texts to mask for a check: each sensitive parameter value of its kind_a sets as stored,
 * and, for a value that reads as a JSON string (`"abc"`), that string as the engine got it.
 * Longest first, so that a value containing another is masked whole.
 */
export function sensitiveValues(input: runsV1.GetPolicyCheckInputResponse__Output): string[] {
  const found = new Set<string>();
  for (const set of input.policySets) {
    if (evaluationPolicyKind.toWord(set.kind) !== 'kind_a') continue;
    for (const key of set.sensitiveParameters) {
      const value = set.parameters[key];
      if (value === undefined) continue;
      found.add(value);
      const parsed = jsonString(value);
      if (parsed !== undefined) found.add(parsed);
    }
  }
  return [...found].filter((v) => v.length >= MIN_MASKED_LENGTH).sort((a, b) => b.length - a.length);
}

function jsonString(value: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** `text` with every occurrence of the values replaced by MASK. */
export function maskText(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of values) if (out.includes(v)) out = out.split(v).join(MASK);
  return out;
}

/** Every string (and key) of a JSON-like value masked; depth-limited like what runs stores. */
function maskDeep(value: unknown, values: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return maskText(value, values);
  if (depth > 100 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, values, depth + 1));
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(value)) out[maskText(k, values)] = maskDeep(v, values, depth + 1);
  return out;
}

/**
 * An evaluation with the sensitive values masked in all it reports: outcome lines, queries and
 * descriptions, the report, the details, the error. A policy may print its params, and an engine
 * may quote them in an error: neither reaches runs' tables, the check's output or a log line.
 * Policy and set names are left as they are (runs matches outcomes by them).
 */
export function maskEvaluation(evaluation: CheckEvaluation, values: readonly string[]): CheckEvaluation {
  if (values.length === 0) return evaluation;
  if ('error' in evaluation) {
    return { error: maskText(evaluation.error, values), report: maskText(evaluation.report, values) };
  }
  return {
    outcomes: evaluation.outcomes.map((o) => ({
      ...o,
      lines: o.lines.map((l) => maskText(l, values)),
      query: o.query === undefined ? undefined : maskText(o.query, values),
      description: o.description === undefined ? undefined : maskText(o.description, values),
    })),
    report: maskText(evaluation.report, values),
    details:
      evaluation.details === undefined
        ? undefined
        : (maskDeep(evaluation.details, values) as Record<string, unknown>),
  };
}
