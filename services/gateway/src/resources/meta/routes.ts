import type { Api, RouteContext } from '../../route-context.js';
import { NoContent, schema } from '../../schemas/common.js';

export const API_VERSION = '2.6';

/** `GET /ping`: clients call it first and read these headers (never `TFP-AppName: HCP Terraform`). */
export function registerMetaRoutes(app: Api, _ctx: RouteContext): void {
  app.get(
    '/ping',
    {
      config: { isPublic: true },
      schema: schema('meta', {
        summary: 'Ping: answers TFP-API-Version and X-TFE-Version headers',
        security: [],
        response: { 204: NoContent },
      }),
    },
    async (_request, reply) => {
      reply.header('TFP-API-Version', API_VERSION);
      reply.header('X-TFE-Version', 'policyhub');
      return reply.status(204).send();
    },
  );
}
