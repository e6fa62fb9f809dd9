import { badRequest } from '@policyhub/errors';
import { Ajv } from 'ajv';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { bodyValidationError } from '../jsonapi/validation-errors.js';

/**
 * One Ajv for every route schema (ADR 0028): all errors (the formatter reports every attribute
 * problem), no coercion, no defaults, nothing removed (the body a reader sees is the body sent),
 * and the `x-` wording
 * annotations allowed.
 */
const ajv = new Ajv({
  allErrors: true,
  verbose: true,
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
});

/**
 * fastify's validator compiler. A body that fails becomes the 422 of `bodyValidationError`; body
 * routes set `attachValidation` and raise it with `validBody` at the point the resource's reader
 * always ran (after authentication and, for updates, after the visibility check), so a client
 * never learns about a resource it may not see from a 422. Parameters and query strings are
 * described as strings, which is what the router and `parseQuery` produce.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = ajv.compile(schema as object);
  return (data: unknown) => {
    if (validate(data)) return { value: data };
    const error =
      httpPart === 'body'
        ? bodyValidationError(validate.errors ?? [], schema as Record<string, unknown>)
        : badRequest('GATEWAY_INVALID_PARAMETER', `invalid ${httpPart ?? 'request'}`);
    // Problems only a reader words (none today) are left to it.
    return error ? { error } : { value: data };
  };
};

/** The request body once its route schema accepted it; throws the schema's 422 otherwise. */
export function validBody(request: FastifyRequest): unknown {
  if (request.validationError) throw request.validationError;
  return request.body;
}
