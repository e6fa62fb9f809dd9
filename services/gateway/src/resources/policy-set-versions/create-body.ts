import { AppError, type ErrorItem } from '@policyhub/errors';
import { isObject } from '../../jsonapi/body.js';
import { describedAttribute } from '../../schemas/jsonapi.js';

/** The create body's schema in OpenAPI; its rules are the reader's (below). */
export const CREATE_VERSION_BODY = describedAttribute(
  "Optional. `auto-promote` (default true): whether the version becomes the set's current version once its upload is ready; false keeps it `staged` until promoted (`POST /policy-set-versions/:id/actions/promote`).",
  {
    type: ['object', 'null'],
    properties: {
      data: {
        type: ['object', 'null'],
        properties: {
          type: { type: 'string', enum: ['policy-set-versions'] },
          attributes: {
            type: ['object', 'null'],
            properties: { 'auto-promote': { type: ['boolean', 'null'] } },
          },
        },
      },
    },
  },
);

/**
 * What a version create body asks for. Clients send no body at all (go-tfe, today's behaviour),
 * `{}`, or `{"data": {"type": "policy-set-versions", "attributes": {"auto-promote": false}}}`.
 * Other members and attributes are ignored, as in every other document body. A 422 points at
 * the offending member for a body that is not an object, a `data` or `data.attributes` that is
 * not an object, another `type`, or an `auto-promote` that is not a boolean (null is the default).
 */
export function readCreateVersionBody(body: unknown): { autoPromote?: boolean } {
  if (body === undefined || body === null) return {};
  if (!isObject(body)) throw invalid([{ pointer: '', detail: 'the body must be a JSON object' }]);
  const errors: Array<{ pointer: string; detail: string }> = [];
  const fail = (pointer: string, detail: string) => errors.push({ pointer, detail });
  let autoPromote: boolean | undefined;
  const data = body.data;
  if (data !== undefined && data !== null) {
    if (!isObject(data)) fail('/data', 'data must be an object');
    else {
      if (data.type !== undefined && data.type !== 'policy-set-versions')
        fail('/data/type', 'type must be policy-set-versions');
      const attributes = data.attributes;
      if (attributes !== undefined && attributes !== null) {
        if (!isObject(attributes)) fail('/data/attributes', 'attributes must be an object');
        else {
          const value = Object.hasOwn(attributes, 'auto-promote') ? attributes['auto-promote'] : undefined;
          if (typeof value === 'boolean') autoPromote = value;
          else if (value !== undefined && value !== null)
            fail('/data/attributes/auto-promote', 'Auto promote must be true or false');
        }
      }
    }
  }
  if (errors.length > 0) throw invalid(errors);
  return autoPromote === undefined ? {} : { autoPromote };
}

const invalid = (errors: Array<{ pointer: string; detail: string }>) =>
  new AppError(
    'invalid',
    'GATEWAY_INVALID_BODY',
    errors.map((e): ErrorItem => ({ title: 'invalid attribute', ...e })),
  );
