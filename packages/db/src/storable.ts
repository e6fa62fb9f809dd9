/*
 * What an evaluator may report (PolicyEvaluator's CompletePolicyCheck), checked at both ends: by
 * the evaluator before it reports, by runs before it stores. Postgres `text` refuses NUL
 * (U+0000); `jsonb` refuses NUL escapes and lone surrogates, and its parser (like
 * JSON.stringify) recurses per level. A result holding any of these is tenant data no evaluator
 * will ever store: the check is decided errored on the first attempt instead of failing with
 * INTERNAL and being retried for every lease (docs/security.md, "Isolation in the evaluation
 * pipeline").
 */

/** Engine details nest at most this deep (the result object they are served under adds two). */
export const MAX_DETAILS_DEPTH = 64;
/** The engine details' JSON at most this long, in bytes. */
export const MAX_DETAILS_BYTES = 1024 * 1024;
/** A check's report is cut at this many bytes (with a visible marker). */
export const MAX_REPORT_BYTES = 1024 * 1024;

// A lone surrogate: a high one not followed by a low one, or a low one without a high before it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Why `text` cannot be stored as it is, or undefined. */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate (not valid Unicode)';
  return undefined;
}

/** The text with NUL and lone surrogates replaced by U+FFFD: for messages that must be kept. */
export const storableText = (text: string): string =>
  text.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');

/**
 * Why a parsed JSON value cannot be stored (too deep, or a key or string that is not storable
 * text), found without recursion; or undefined.
 */
export function unstorableJson(value: unknown, maxDepth = MAX_DETAILS_DEPTH): string | undefined {
  const stack: Array<{ value: unknown; depth: number; at: string }> = [{ value, depth: 1, at: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      const why = unstorableText(item.value);
      if (why) return `the string at ${item.at || '/'} ${why}`;
      continue;
    }
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > maxDepth) return `it nests deeper than ${maxDepth} levels`;
    const entries = Array.isArray(item.value)
      ? item.value.map((v, i) => [String(i), v] as const)
      : Object.entries(item.value);
    for (const [key, child] of entries) {
      const at = `${item.at}/${pointerToken(key)}`;
      const why = unstorableText(key);
      if (why) return `a key at ${item.at || '/'} ${why}`;
      stack.push({ value: child, depth: item.depth + 1, at });
    }
  }
  return undefined;
}

const pointerToken = (key: string) =>
  storableText(key.length > 80 ? `${key.slice(0, 80)}…` : key)
    .replaceAll('~', '~0')
    .replaceAll('/', '~1');
