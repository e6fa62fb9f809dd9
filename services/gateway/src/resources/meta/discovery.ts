import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { schema } from '../../schemas/common.js';

/** Terraform's remote service discovery document (served at the root, not under /api/v2). */
export const DISCOVERY_PATH = '/.well-known/terraform.json';

/**
 * The services this host provides, as upstream names them: the API under `/api/v2/` for every
 * `tfe.v2*` identifier the Terraform CLI (`tfe.v2`, `tfe.v2.1`) and the `tfe` provider (`tfe.v2.2`)
 * look up. Services the product does not implement (module and provider registries, state,
 * `terraform login`'s OAuth, message of the day, version constraints) are not advertised, so
 * clients report them as unsupported instead of calling endpoints that do not exist (ADR 0020).
 */
export const DISCOVERY_DOCUMENT = Object.freeze({
  'tfe.v2': '/api/v2/',
  'tfe.v2.1': '/api/v2/',
  'tfe.v2.2': '/api/v2/',
});

/**
 * `GET /.well-known/terraform.json`, without a token and in every vocabulary profile. Clients
 * (terraform-svchost's discovery) accept only `application/json`, not the JSON:API media type.
 */
export function registerDiscoveryRoute(app: FastifyInstance): void {
  app.get(
    DISCOVERY_PATH,
    {
      config: { isPublic: true },
      schema: schema('meta', {
        summary: "Terraform's remote service discovery document (application/json)",
        security: [],
        produces: ['application/json'],
        response: { 200: Type.Record(Type.String(), Type.String()) },
      }),
    },
    async (_request, reply) => reply.status(200).type('application/json').send(DISCOVERY_DOCUMENT),
  );
}
