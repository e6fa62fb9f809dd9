/** Escapes LIKE wildcards so a search string matches literally (used with ILIKE … ESCAPE '\'). */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);
