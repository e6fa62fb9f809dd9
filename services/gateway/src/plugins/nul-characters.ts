import { AppError, notFound } from '@policyhub/errors';
import type { FastifyInstance } from 'fastify';

const NUL = '\u0000';

/**
 * Postgres text cannot hold U+0000: a NUL that reached a query would fail there (a 500). Every
 * string that can reach a service is checked at the edge instead: JSON bodies here, path and query
 * parameters by rejectNulCharacters.
 *
 * Returns the JSON pointer of the first string (or object key) holding a NUL, else undefined.
 * Iterative, because a body may nest hundreds of thousands of levels deep.
 */
export function nulCharacterPointer(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, pointer] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes(NUL)) return pointer;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${pointer}/${i}`]);
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, child] of Object.entries(v)) {
        const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (key.includes(NUL)) return at;
        stack.push([child, at]);
      }
    }
  }
  return undefined;
}

export const nulCharacterError = (where: { pointer: string } | { parameter: string }) =>
  new AppError('invalid', 'GATEWAY_NUL_CHARACTER', [
    { title: 'invalid attribute', detail: 'must not contain the NUL character (\\u0000)', ...where },
  ]);

/**
 * After authentication: a path parameter holding a NUL names nothing that can exist (404); a query
 * parameter holding one is a 422 naming the parameter.
 */
export function rejectNulCharacters(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    const params = request.params as Record<string, string> | undefined;
    if (params && Object.values(params).some((v) => v.includes(NUL))) throw notFound();
    for (const [key, value] of Object.entries((request.query as Record<string, string> | undefined) ?? {})) {
      if (key.includes(NUL) || value.includes(NUL)) throw nulCharacterError({ parameter: key });
    }
  });
}
