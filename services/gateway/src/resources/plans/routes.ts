import type { Readable } from 'node:stream';
import type { runsV1 } from '@policyhub/contracts';
import { STREAM_DEADLINE_MS, sendServerStream, streamBody } from '../../grpc-streams.js';
import { refuseInclude } from '../../jsonapi/include.js';
import { lingerIfUnread } from '../../plugins/body-limits.js';
import { type Api, type RouteContext, as, paramsOf, queryOf, sendDocument } from '../../route-context.js';
import { PLAN } from './schema.js';
import { serializePlan } from './serializer.js';
import { Type } from '@sinclair/typebox';
import { IdParams, params, resourceDocument, schema } from '../../schemas/common.js';
import { query } from '../../schemas/common.js';

/**
 * Plans (ADR 0016): show, and the `terraform show -json` document in and out. The PUT body is
 * never parsed or buffered here: whatever its declared type and size, it streams to the runs
 * service, which validates it on the way to storage and enforces PLAN_MAX_BYTES (the gateway's
 * JSON body limit does not apply to this route).
 */
export function registerPlanRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  app.get(
    '/plans/:id',
    {
      schema: schema('plans', {
        summary: 'Show a plan',
        params: IdParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(PLAN) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const { plan } = await clients.plans.GetPlan({ id: paramsOf<'id'>(request).id }, as(request));
      return sendDocument(reply, 200, { data: serializePlan(plan!, ctx.baseUrl(request)) });
    },
  );

  app.get(
    '/plan-logs/:token',
    {
      config: { isPublic: true },
      schema: schema('plans', {
        summary: "Read a plan's log at its capability URL (no token; text)",
        produces: ['text/plain'],
        params: params('token'),
        querystring: Type.Object(
          {
            offset: Type.Optional(
              Type.String({ pattern: '^[0-9]{1,12}$', description: 'First byte to send (default 0).' }),
            ),
            limit: Type.Optional(
              Type.String({ pattern: '^[0-9]{1,12}$', description: 'Most bytes to send (default: all).' }),
            ),
          },
          { additionalProperties: true },
        ),
        security: [],
        response: {
          200: Type.String({
            description:
              "What PolicyHub recorded of the plan (it runs no Terraform), between STX (0x02) and, once the plan is no longer pending, ETX (0x03), as upstream's log archive serves it; `offset` and `limit` (bytes) read a part of it.",
          }),
        },
      }),
    },
    async (request, reply) => {
      const { token } = paramsOf<'token'>(request);
      const { offset, limit } = queryOf(request);
      const { log, complete } = await clients.plans.ReadPlanLog({ token });
      const text = Buffer.from(`\u0002${log}${complete ? '\u0003' : ''}`, 'utf8');
      const start = Math.min(Number(offset ?? 0), text.length);
      const end = limit === undefined ? text.length : Math.min(start + Number(limit), text.length);
      return reply
        .status(200)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(text.subarray(start, end));
    },
  );

  app.get(
    '/plans/:id/json-output',
    {
      schema: schema('plans', {
        summary: 'The JSON plan of a plan',
        produces: ['application/json'],
        params: IdParams,
        response: { 200: Type.Unknown({ description: 'The plan as `terraform show -json` writes it.' }) },
      }),
    },
    async (request, reply) => {
      const call = clients.plans.raw.DownloadPlanJson(
        { id: paramsOf<'id'>(request).id },
        clients.plans.metadata(as(request)),
        {
          deadline: Date.now() + STREAM_DEADLINE_MS,
        },
      );
      return sendServerStream(reply, 'application/json', call);
    },
  );

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.addHook('onRequest', async (request) => {
      request.headers['content-type'] = 'application/octet-stream';
    });

    scope.put(
      '/plans/:id/json-output',
      {
        config: { streamedBody: true },
        schema: schema('plans', {
          summary: 'Upload the JSON plan (raw body)',
          consumes: ['application/json', 'application/octet-stream'],
          params: IdParams,
          response: { 200: resourceDocument(PLAN) },
        }),
      },
      async (request, reply) => {
        const body = (request.body as Readable | undefined) ?? request.raw;
        try {
          const { result, bodyFullyRead } = await streamBody<
            runsV1.UploadPlanJsonRequest,
            runsV1.UploadPlanJsonResponse__Output
          >(
            (callback) =>
              clients.plans.clientStream(
                'UploadPlanJson',
                { ...as(request), deadlineMs: STREAM_DEADLINE_MS },
                callback,
              ),
            { planId: paramsOf<'id'>(request).id },
            (data) => ({ data }),
            body,
          );
          lingerIfUnread(request, reply, bodyFullyRead);
          return sendDocument(reply, 200, { data: serializePlan(result.plan!, ctx.baseUrl(request)) });
        } catch (err) {
          // The client went away mid-upload (runs has discarded the attempt): nobody is left to answer.
          if (request.raw.destroyed && !request.raw.complete) return reply.hijack();
          lingerIfUnread(request, reply, (err as { bodyFullyRead?: boolean }).bodyFullyRead ?? true);
          throw err;
        }
      },
    );
  });
}
