/**
 * Splits EVALUATOR_COMMAND into the executable and its arguments: a JSON array of strings is
 * taken as is; otherwise words are split on white space, and single or double quotes group
 * words (no other shell syntax: the engine is never run through a shell).
 */
export function parseCommand(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (
      !Array.isArray(parsed) ||
      parsed.length === 0 ||
      parsed.some((p) => typeof p !== 'string' || p === '')
    ) {
      throw new Error('EVALUATOR_COMMAND: a JSON command must be a non-empty array of non-empty strings');
    }
    return parsed as string[];
  }
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (const ch of trimmed) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error('EVALUATOR_COMMAND: unterminated quote');
  if (inWord) words.push(current);
  if (words.length === 0) throw new Error('EVALUATOR_COMMAND: no executable given');
  return words;
}
