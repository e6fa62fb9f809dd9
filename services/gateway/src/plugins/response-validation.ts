import type { Logger } from '@policyhub/telemetry';
import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpError } from '../errors/http-errors.js';
import { JSON_API } from '../jsonapi/media-type.js';
import { ErrorDocument } from '../schemas/common.js';

/**
 * The response-validation mode (VALIDATE_RESPONSES, ADR 0031): every JSON answer, as it leaves the
 * gateway (after the vocabulary profile and serialization), is checked against the response
 * schema its route declares for its status (`200`, `4xx`, …; the error document where no route
 * matched). The schemas are closed, so a member a schema does not list, a wrong type, or a value
 * outside an enum fails. A failure is logged (`response does not match its schema`, with the
 * route and every mismatch) and the client gets a 500 instead: tests see it, and the e2e suite
 * runs in this mode. Off in production: it costs a parse and a validation per response.
 */
export function registerResponseValidation(
  app: FastifyInstance,
  sharedSchemas: readonly TSchema[],
  logger: Logger,
): void {
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
  for (const schema of [...sharedSchemas, ErrorDocument]) ajv.addSchema(schema);
  const compiled = new WeakMap<object, ValidateFunction>();
  const validatorOf = (schema: object): ValidateFunction => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(schema);
      compiled.set(schema, validate);
    }
    return validate;
  };

  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || payload === '' || !isJson(reply)) return payload;
    const schema = responseSchemaOf(request, reply.statusCode);
    if (!schema) {
      return reject(request, reply, [`no response schema for status ${reply.statusCode}`]);
    }
    let document: unknown;
    try {
      document = JSON.parse(payload);
    } catch {
      return reject(request, reply, ['the body is not JSON']);
    }
    const validate = validatorOf(schema);
    if (validate(document)) return payload;
    return reject(
      request,
      reply,
      (validate.errors ?? []).map(
        (e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
      ),
    );
  });

  function reject(request: FastifyRequest, reply: FastifyReply, mismatches: string[]): string {
    logger.error(
      {
        route: request.routeOptions.url,
        method: request.method,
        status: reply.statusCode,
        mismatches,
      },
      'response does not match its schema',
    );
    const failure = httpError('INTERNAL_ERROR');
    reply.code(failure.statusCode).type(JSON_API);
    return JSON.stringify(failure.body);
  }
}

const isJson = (reply: FastifyReply): boolean =>
  /\bjson\b/.test(String(reply.getHeader('content-type') ?? ''));

/** The route's schema for this status: exact, then `4xx`-style, then `default`; errors elsewhere. */
function responseSchemaOf(request: FastifyRequest, status: number): object | undefined {
  const responses = (request.routeOptions.schema?.response ?? undefined) as
    | Record<string, object>
    | undefined;
  if (!responses) return status >= 400 ? ErrorDocument : undefined;
  return responses[status] ?? responses[`${String(status)[0]}xx`] ?? responses.default;
}
