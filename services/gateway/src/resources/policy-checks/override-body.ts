import { AppError, type ErrorItem } from '@policyhub/errors';
import { isObject } from '../../jsonapi/body.js';

/** Top-level members an override body may have (JSON:API's own `meta` and `jsonapi` included). */
const TOP_LEVEL = new Set(['comment', 'data', 'meta', 'jsonapi']);

/**
 * The optional justification of an override. Clients send no body at all (go-tfe), upstream's
 * `{"comment": "…"}`, or a JSON:API-style `{"data": {"attributes": {"comment": "…"}}}`. Anything
 * else is refused with a 422 pointing at the offending member, so a malformed justification
 * never overrides a check without it: a body that is not an object, an unknown top-level member,
 * `data` or `data.attributes` that are not objects, a comment that is not a string (null is no
 * comment), or two different comments.
 */
export function readOverrideComment(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (!isObject(body)) throw invalid('', 'the body must be a JSON object');
  const errors: ErrorItem[] = [];
  const fail = (pointer: string, detail: string) =>
    errors.push({ title: 'invalid attribute', detail, pointer });
  const unknown = Object.keys(body).find((key) => !TOP_LEVEL.has(key));
  if (unknown !== undefined) {
    const key = unknown.slice(0, 100);
    fail(`/${escapePointer(key)}`, `unknown member ${JSON.stringify(key)} (allowed: comment, data)`);
  }
  const top = readComment(body.comment, '/comment', fail);
  let nested: string | undefined;
  const data = body.data;
  if (data !== undefined && data !== null) {
    if (!isObject(data)) fail('/data', 'data must be an object');
    else {
      if (data.type !== undefined && typeof data.type !== 'string')
        fail('/data/type', 'type must be a string');
      const attributes = data.attributes;
      if (attributes !== undefined && attributes !== null) {
        if (!isObject(attributes)) fail('/data/attributes', 'attributes must be an object');
        else nested = readComment(attributes.comment, '/data/attributes/comment', fail);
      }
    }
  }
  if (top !== undefined && nested !== undefined && top !== nested) {
    fail('/data/attributes/comment', 'comment and data.attributes.comment must not differ');
  }
  if (errors.length > 0) throw new AppError('invalid', 'GATEWAY_INVALID_BODY', errors);
  return top ?? nested;
}

function readComment(
  value: unknown,
  pointer: string,
  fail: (pointer: string, detail: string) => void,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  fail(pointer, 'Comment must be a string');
  return undefined;
}

const invalid = (pointer: string, detail: string) =>
  new AppError('invalid', 'GATEWAY_INVALID_BODY', [{ title: 'invalid attribute', detail, pointer }]);

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
