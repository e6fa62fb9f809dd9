import type { Logger } from '@policyhub/telemetry';
import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpError } from '../errors/http-errors.js';
import { JSON_API } from '../jsonapi/media-type.js';
import { ErrorDocument } from '../schemas/common.js';

/**
 * The response-validation mode (VALIDATE_RESPONSES, ADR 0031): every JSON answer is checked
 * against the response schema its route declares for its status (`200`, `4xx`, …; the error
 * document where no route matched), as the client gets it (after the vocabulary profile). The
 * schemas are closed, so a member a schema does not list, a wrong type, or a value outside an
 * enum fails; and the serialized body must be exactly what `JSON.stringify` writes for the
 * document, so a schema-driven serializer that drops, reorders or reshapes anything fails too.
 * A failure is logged (`response does not match its schema`, with the route and every mismatch)
 * and the client gets a 500 instead: tests see it, and the e2e suite runs in this mode. Off in
 * production: it costs a validation and a second serialization per response.
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

  /** What the serialized body must be: the document as `JSON.stringify` writes it. */
  const expected = new WeakMap<FastifyRequest, string>();

  // Documents: checked as the handler built them (after the vocabulary profile), before the
  // serializer runs, so a serializer that drops or reshapes a member cannot hide it.
  app.addHook('preSerialization', async (request, reply, payload) => {
    const mismatches = mismatchesOf(request, reply.statusCode, payload);
    const document = mismatches.length > 0 ? fail(request, reply, mismatches) : payload;
    expected.set(request, JSON.stringify(document));
    return document;
  });

  // What leaves: a document must come out exactly as JSON.stringify writes it; a JSON body the
  // handler serialized itself is parsed and checked.
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || payload === '' || !isJson(reply)) return payload;
    const written = expected.get(request);
    if (written !== undefined) {
      if (payload === written) return payload;
      let at = 0;
      while (payload[at] === written[at]) at++;
      return JSON.stringify(
        fail(request, reply, [
          `the serializer wrote ${JSON.stringify(payload.slice(at, at + 80))} at offset ${at} ` +
            `where the document has ${JSON.stringify(written.slice(at, at + 80))}`,
        ]),
      );
    }
    let document: unknown;
    try {
      document = JSON.parse(payload);
    } catch {
      return JSON.stringify(fail(request, reply, ['the body is not JSON']));
    }
    const mismatches = mismatchesOf(request, reply.statusCode, document);
    return mismatches.length > 0 ? JSON.stringify(fail(request, reply, mismatches)) : payload;
  });

  function mismatchesOf(request: FastifyRequest, status: number, document: unknown): string[] {
    const schema = responseSchemaOf(request, status);
    if (!schema) return [`no response schema for status ${status}`];
    const validate = validatorOf(schema);
    if (validate(document)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
    );
  }

  /** Logs the mismatches and turns the answer into a 500 (the error document it returns). */
  function fail(request: FastifyRequest, reply: FastifyReply, mismatches: string[]) {
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
    return failure.body;
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
