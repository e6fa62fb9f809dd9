import { invalidAttribute } from '@policyhub/errors';
import { isObject } from '../../jsonapi/body.js';

/**
 * The optional justification of an override. Clients send no body at all (go-tfe), upstream's
 * `{"comment": "…"}`, or a JSON:API-style `{"data": {"attributes": {"comment": "…"}}}`.
 */
export function readOverrideComment(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (!isObject(body)) throw invalidAttribute('GATEWAY_INVALID_BODY', '', 'the body must be a JSON object');
  const attributes = isObject(body.data) && isObject(body.data.attributes) ? body.data.attributes : undefined;
  const [comment, pointer] =
    body.comment !== undefined
      ? [body.comment, '/comment']
      : [attributes?.comment, '/data/attributes/comment'];
  if (comment === undefined || comment === null) return '';
  if (typeof comment !== 'string')
    throw invalidAttribute('GATEWAY_INVALID_BODY', pointer, 'Comment must be a string');
  return comment;
}
