import type { Readable } from 'node:stream';
import { remoteAppError } from '@policyhub/errors';
import { lingerIfUnread } from '../../plugins/body-limits.js';
import { type Api, type RouteContext, paramsOf } from '../../route-context.js';
import { streamUpload } from './stream-upload.js';
import { Type } from '@sinclair/typebox';
import { params, schema } from '../../schemas/common.js';

/**
 * `PUT /uploads/:token`: the capability URL of a policy set version (ADR 0003). No token
 * header (the path is the credential; it is never logged: request logs use the route pattern).
 * Whatever Content-Type the client sends, the body is handed over as a raw stream and piped to
 * storage, never buffered. 200 when the archive was accepted (the version is `ready` by the time
 * this answers in embedded mode); 422 (413 when too large) with the reason when it was rejected,
 * and the version is then `errored`; 404 unknown URL (or its set or organization deleted); 409
 * used, expired, or its organization disabled (nothing stored, the version stays pending).
 */
export function registerUploadRoutes(app: Api, ctx: RouteContext): void {
  app.register(async (scope) => {
    // Only in this scope: every body is a raw stream, and the declared type (even a malformed one)
    // does not matter.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.addHook('onRequest', async (request) => {
      request.headers['content-type'] = 'application/octet-stream';
    });

    scope.put(
      '/uploads/:token',
      {
        config: { isPublic: true, streamedBody: true },
        schema: schema('policy-set-versions', {
          summary: 'Upload the archive of a policy set version to its capability URL (no token; raw tar.gz)',
          consumes: ['application/octet-stream'],
          params: params('token'),
          security: [],
          response: { 200: Type.Null({ description: 'Accepted.' }) },
        }),
      },
      async (request, reply) => {
        const { token } = paramsOf<'token'>(request);
        const body = (request.body as Readable | undefined) ?? request.raw;
        try {
          const { result, bodyFullyRead } = await streamUpload(ctx.clients.storage, token, body);
          lingerIfUnread(request, reply, bodyFullyRead);
          if (!result.ok) {
            // Storage's rejection code (a catalog code it names in the upload's result).
            const code = result.errorCode;
            if (!code) throw new Error('storage answered a failed upload without an error code');
            const tooLarge = code === 'STORAGE_ARCHIVE_TOO_LARGE';
            throw remoteAppError(tooLarge ? 'too_large' : 'invalid', code, [
              { title: tooLarge ? 'payload too large' : 'unprocessable entity', detail: result.errorMessage },
            ]);
          }
          return reply.status(200).send();
        } catch (err) {
          // The client went away mid-upload (storage has discarded the attempt): nobody is left to
          // answer, and it is not a server failure worth an error log.
          if (request.raw.destroyed && !request.raw.complete) return reply.hijack();
          lingerIfUnread(request, reply, (err as { bodyFullyRead?: boolean }).bodyFullyRead ?? true);
          throw err;
        }
      },
    );
  });
}
