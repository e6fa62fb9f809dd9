import { type Api, type RouteContext, as, paramsOf, sendNoContent } from '../../route-context.js';
import { Type } from '@sinclair/typebox';
import { IdParams, NoContent, schema } from '../../schemas/common.js';

/** Policy source is stored as sent, up to upstream's 10 MB (10 MiB); the service enforces the same limit. */
export const POLICY_CODE_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * `PUT /policies/:id/upload` takes the raw policy source whatever its content type (clients send
 * `application/octet-stream`), so this scope alone replaces the JSON parsers with a raw one.
 * `GET /policies/:id/download` returns the stored bytes.
 */
export function registerPolicyCodeRoutes(app: Api, { clients }: RouteContext): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: POLICY_CODE_LIMIT_BYTES },
      (_req, body, done) => done(null, body),
    );

    scope.put(
      '/policies/:id/upload',
      {
        bodyLimit: POLICY_CODE_LIMIT_BYTES,
        schema: schema('policies', {
          summary:
            'Upload the source of a policy (raw bytes, any content type, at most 10 MiB; empty is accepted)',
          consumes: ['application/octet-stream'],
          params: IdParams,
          response: { 204: NoContent },
        }),
      },
      async (request, reply) => {
        const body = request.body;
        const code = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
        await clients.policies.UploadPolicyCode({ id: paramsOf<'id'>(request).id, code }, as(request));
        return sendNoContent(reply);
      },
    );
  });

  app.get(
    '/policies/:id/download',
    {
      schema: schema('policies', {
        summary: 'Download the source of a policy (404 before the first upload)',
        produces: ['text/plain'],
        params: IdParams,
        response: { 200: Type.String({ description: 'The policy source.' }) },
      }),
    },
    async (request, reply) => {
      const { code } = await clients.policies.DownloadPolicyCode(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      return reply
        .status(200)
        .type('text/plain; charset=utf-8')
        .send(Buffer.from(code ?? new Uint8Array()));
    },
  );
}
