import { refuseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  paramsOf,
  queryOf,
  sendDocument,
  pageDocument,
} from '../../route-context.js';
import { RUN_EVENT } from './schema.js';
import { serializeRunEvent } from './serializer.js';
import { IdParams, listDocument, listQuery, query, resourceDocument, schema } from '../../schemas/common.js';

/** Run events: the target of a comment's `run-event` link, and a run's timeline. */
export function registerRunEventRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  app.get(
    '/run-events/:id',
    {
      schema: schema('run-events', {
        summary: 'Show a run event',
        params: IdParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(RUN_EVENT) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const { runEvent } = await clients.runs.GetRunEvent({ id: paramsOf<'id'>(request).id }, as(request));
      return sendDocument(reply, 200, { data: serializeRunEvent(runEvent!) });
    },
  );

  app.get(
    '/runs/:id/run-events',
    {
      schema: schema('run-events', {
        summary: "List a run's events",
        params: IdParams,
        querystring: listQuery([]),
        response: { 200: listDocument(RUN_EVENT) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      refuseInclude(query.include);
      const { id } = paramsOf<'id'>(request);
      const res = await clients.runs.ListRunEvents({ runId: id, page }, as(request));
      return sendDocument(reply, 200, {
        data: res.runEvents.map(serializeRunEvent),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );
}
