import { relative } from 'node:path';
import type { PolicyResult } from '../engine.js';

/** What `opa eval --format json` and `opa check --format json` answered. */
export type OpaAnswer =
  | { kind: 'value'; value: unknown }
  | { kind: 'undefined' }
  /** `{"errors": [...]}`: parse, compile or evaluation errors, one line each, and their codes. */
  | { kind: 'errors'; lines: string[]; codes: string[] };

interface OpaError {
  message?: unknown;
  code?: unknown;
  location?: { file?: unknown; row?: unknown; col?: unknown } | null;
}

/**
 * Reads OPA's JSON output: `{"result": [{"expressions": [{"value": …}]}]}` for a defined query,
 * `{}` for an undefined one, `{"errors": [{"code", "message", "location"}]}` for errors. File names
 * in errors are shown relative to `root` (the bundle), so a message names `policies/deny.rego`
 * rather than the evaluator's temporary path. Anything else becomes an error line.
 */
export function readOpaAnswer(output: string, root: string): OpaAnswer {
  let doc: unknown;
  try {
    doc = JSON.parse(output);
  } catch {
    const text = output.trim();
    return failure(text ? `OPA printed: ${preview(text)}` : 'OPA printed nothing');
  }
  if (!isObject(doc)) return failure('OPA printed JSON that is not an object');
  if (Array.isArray(doc.errors) && doc.errors.length > 0) {
    const errors = doc.errors as OpaError[];
    return {
      kind: 'errors',
      lines: errors.map((e) => errorLine(e, root)),
      codes: errors.map((e) => (typeof e.code === 'string' ? e.code : '')),
    };
  }
  if (doc.result === undefined) return { kind: 'undefined' };
  const results = Array.isArray(doc.result) ? doc.result : [];
  if (results.length !== 1) {
    return failure(`the query has ${results.length} results; it must name one rule (no variables)`);
  }
  const expressions =
    isObject(results[0]) && Array.isArray(results[0].expressions) ? results[0].expressions : [];
  if (expressions.length !== 1 || !isObject(expressions[0]) || !('value' in expressions[0])) {
    return failure('the query must be one expression naming a rule');
  }
  return { kind: 'value', value: expressions[0].value };
}

/**
 * Upstream's rule for a policy's query: its value must be an array (a set reads as one); empty
 * passes, non-empty fails with its elements as the messages; anything else (undefined, another
 * type, an error) is errored.
 */
export function judgeAnswer(query: string, answer: OpaAnswer): { result: PolicyResult; lines: string[] } {
  if (answer.kind === 'errors') return { result: 'errored', lines: answer.lines };
  if (answer.kind === 'undefined') {
    return {
      result: 'errored',
      lines: [
        `${query} is undefined: no rule of that package and name has a value (a policy's query must name one)`,
      ],
    };
  }
  const { value } = answer;
  if (!Array.isArray(value)) {
    return {
      result: 'errored',
      lines: [`${query} is ${describeValue(value)}, not an array of messages (empty when the policy passes)`],
    };
  }
  if (value.length === 0) return { result: 'passed', lines: [] };
  return { result: 'failed', lines: value.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))) };
}

const failure = (line: string): OpaAnswer => ({ kind: 'errors', lines: [line], codes: [''] });

function errorLine(error: OpaError, root: string): string {
  const code = typeof error.code === 'string' ? `${error.code}: ` : '';
  const file = typeof error.location?.file === 'string' ? error.location.file : '';
  const shownFile = file.startsWith(`${root}/`) ? relative(root, file) : file;
  const where = shownFile ? `${shownFile}:${error.location?.row ?? 0}: ` : '';
  const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
  return `${code}${where}${message}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${preview(JSON.stringify(value))})`;
  return `a ${typeof value} (${preview(JSON.stringify(value))})`;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const preview = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);
