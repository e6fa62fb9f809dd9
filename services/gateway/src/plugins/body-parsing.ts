import { AppError, badRequest } from '@policyhub/errors';
import type { FastifyInstance } from 'fastify';
import { JSON_API } from '../jsonapi/media-type.js';
import { nulCharacterError, nulCharacterPointer } from './nul-characters.js';

/** No document of this API nests deeper than a handful of levels; far deeper ones are refused unparsed. */
export const JSON_BODY_MAX_DEPTH = 64;

/**
 * Whether `text` nests objects and arrays more than `limit` levels deep: one pass over the
 * characters, outside strings, so a hostile body is refused before it is parsed into memory.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const tooDeep = () =>
  new AppError('invalid', 'GATEWAY_BODY_TOO_DEEP', [
    {
      title: 'invalid attribute',
      detail: `the request body nests objects and arrays more than ${JSON_BODY_MAX_DEPTH} levels deep`,
      pointer: '/',
    },
  ]);

/** JSON bodies of either media type; an empty body is allowed (clients send one on body-less POST/DELETE). */
export function registerBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', JSON_API],
    { parseAs: 'string' },
    (_req, body: string | Buffer, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      if (nestsDeeperThan(text, JSON_BODY_MAX_DEPTH)) return done(tooDeep() as unknown as Error, undefined);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        done(
          badRequest('GATEWAY_MALFORMED_JSON', 'the request body is not valid JSON') as unknown as Error,
          undefined,
        );
        return;
      }
      // A NUL can only arrive escaped (`\u0000`): look for one only when the text holds that escape.
      const nul = text.includes('\\u0000') ? nulCharacterPointer(parsed) : undefined;
      if (nul !== undefined) done(nulCharacterError({ pointer: nul }) as unknown as Error, undefined);
      else done(null, parsed);
    },
  );
}
