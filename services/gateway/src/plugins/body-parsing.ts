import { badRequest } from '@policyhub/errors';
import type { FastifyInstance } from 'fastify';
import { JSON_API } from '../jsonapi/media-type.js';
import { nulCharacterError, nulCharacterPointer } from './nul-characters.js';

/** JSON bodies of either media type; an empty body is allowed (clients send one on body-less POST/DELETE). */
export function registerBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', JSON_API],
    { parseAs: 'string' },
    (_req, body: string | Buffer, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
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
