import type { FastifyRequest } from 'fastify';
import { RequestDocument } from '../../jsonapi/body.js';
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
import { COMMENT } from './schema.js';
import { serializeComment } from './serializer.js';
import { IdParams, listDocument, listQuery, query, resourceDocument, schema } from '../../schemas/common.js';
import { validBody } from '../../schemas/validation.js';

export function registerCommentRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  /** The comment body, or the body's 422; a run the caller cannot see is a 404 first. */
  const readBody = async (request: FastifyRequest, runId: string): Promise<string> => {
    try {
      const doc = new RequestDocument(validBody(request));
      const body = doc.string('body');
      return body!;
    } catch (err) {
      await clients.runs.GetRun({ id: runId }, as(request));
      throw err;
    }
  };

  app.post(
    '/runs/:id/comments',
    {
      schema: schema('comments', {
        summary: 'Comment on a run',
        params: IdParams,
        body: COMMENT.body({ create: true }),
        response: { 201: resourceDocument(COMMENT) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id } = paramsOf<'id'>(request);
      const body = await readBody(request, id);
      const { comment } = await clients.comments.CreateComment({ runId: id, body }, as(request));
      return sendDocument(reply, 201, { data: serializeComment(comment!) });
    },
  );

  app.get(
    '/runs/:id/comments',
    {
      schema: schema('comments', {
        summary: "List a run's comments",
        params: IdParams,
        querystring: listQuery([]),
        response: { 200: listDocument(COMMENT) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      refuseInclude(query.include);
      const { id } = paramsOf<'id'>(request);
      const res = await clients.comments.ListRunComments({ runId: id, page }, as(request));
      return sendDocument(reply, 200, {
        data: res.comments.map(serializeComment),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.get(
    '/comments/:id',
    {
      schema: schema('comments', {
        summary: 'Show a comment',
        params: IdParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(COMMENT) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const { comment } = await clients.comments.GetComment({ id: paramsOf<'id'>(request).id }, as(request));
      return sendDocument(reply, 200, { data: serializeComment(comment!) });
    },
  );
}
