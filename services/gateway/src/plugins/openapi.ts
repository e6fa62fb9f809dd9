import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { finishDocument, type OperationSchema, transformRoute } from '../openapi-operations.js';

type OpenApiLike = Parameters<typeof finishDocument>[0];
import { type TSchema, Type } from '@sinclair/typebox';
import { ErrorDocument, responses } from '../schemas/common.js';
import { validatorCompiler } from '../schemas/validation.js';

export interface RegisteredRoute {
  method: string;
  url: string;
  schema: unknown;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route as registered (fastify's onRoute hook), for the document's completeness test. */
    registeredRoutes: readonly RegisteredRoute[];
  }
}

/** Where the document is served (unauthenticated) and committed (ADR 0029). */
export const OPENAPI_PATH = '/api/v2/openapi.json';
export const OPENAPI_FILE = 'docs/api/openapi.json';

/**
 * Route schemas (ADR 0028) and the OpenAPI 3.1 document generated from them (ADR 0029). Must be
 * registered before any route: `@fastify/swagger` collects routes as they are added. Validation
 * uses the gateway's own Ajv (`schemas/validation.ts`). Response schemas are exact (the shared
 * resource schemas each resource folder defines, ADR 0031 and 0040), and they also write the
 * answers (fastify's default: fast-json-stringify compiled from them; ADR 0031 measured it).
 */
export async function registerRouteSchemas(
  app: FastifyInstance,
  resourceSchemas: readonly TSchema[],
): Promise<void> {
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method, url: route.url, schema: route.schema });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.addSchema(ErrorDocument);
  for (const resource of resourceSchemas) app.addSchema(resource);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'PolicyHub API',
        version: '2',
        description:
          'The JSON:API of PolicyHub, in the default `spec` vocabulary profile (`API_VOCABULARY=spec`); ' +
          'with `API_VOCABULARY=tfe` responses use upstream spellings (policy kinds `sentinel`/`opa`, ' +
          '`terraform-*` organization attributes; docs/adr/0020-vocabulary-profiles.md). Requests are ' +
          'read in either vocabulary. Every operation but ping, discovery, upload URLs and this ' +
          'document needs `Authorization: Bearer <token>`; a resource the caller may not see is a 404.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // For client generators (ADR 0047): operationIds, raw upload bodies, servers, error media types.
    transform: ({ schema, url, route }) =>
      transformRoute(
        String(Array.isArray(route.method) ? route.method[0] : route.method),
        url,
        schema as OperationSchema | undefined,
      ) as {
        schema: FastifySchema;
        url: string;
      },
    transformObject: (documentObject) =>
      finishDocument(('openapiObject' in documentObject ? documentObject.openapiObject : {}) as OpenApiLike),
  });
}

/** `GET /api/v2/openapi.json`: the generated document, without a token. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  app.get(
    OPENAPI_PATH,
    {
      config: { isPublic: true },
      schema: {
        tags: ['meta'],
        summary: 'This OpenAPI 3.1 document',
        security: [],
        produces: ['application/json'],
        response: responses({ 200: Type.Object({}, { additionalProperties: true }) }),
      },
    },
    async (_request, reply) => reply.status(200).type('application/json').send(app.swagger()),
  );
}
