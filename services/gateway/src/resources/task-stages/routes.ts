import type { runsV1 } from '@policyhub/contracts';
import type { FastifyRequest } from 'fastify';
import { Included } from '../../jsonapi/document.js';
import { parseInclude, refuseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  pageDocument,
  paramsOf,
  queryOf,
  readAfterVisibilityCheck,
  sendDocument,
} from '../../route-context.js';
import { IdParams, listDocument, listQuery, query, resourceDocument, schema } from '../../schemas/common.js';
import { describedAttribute } from '../../schemas/jsonapi.js';
import { validBody } from '../../schemas/validation.js';
import { POLICY_EVALUATION } from '../policy-evaluations/schema.js';
import { serializePolicyEvaluation } from '../policy-evaluations/serializer.js';
import { readOverrideComment } from '../policy-checks/override-body.js';
import { includeRunWorkspaces, includeRuns } from '../runs/included.js';
import { RUN } from '../runs/schema.js';
import { WORKSPACE } from '../workspaces/schema.js';
import { TASK_STAGE } from './schema.js';
import { serializeTaskStage } from './serializer.js';

const STAGE_INCLUDES = ['run', 'run.workspace', 'policy_evaluations', 'task_results'] as const;

/** An optional justification: no body, `{}` or `{"comment": "…"}` (go-tfe's plain JSON). */
const OVERRIDE_BODY = describedAttribute('An optional justification of the override.', {
  type: ['object', 'null'],
  properties: {
    comment: { type: ['string', 'null'] },
    data: {
      type: ['object', 'null'],
      properties: {
        attributes: { type: ['object', 'null'], properties: { comment: { type: ['string', 'null'] } } },
      },
    },
  },
});

export function registerTaskStageRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  /** `include`: the runs (and their workspaces) and the evaluations, one batch call each. */
  const includedFor = async (request: FastifyRequest, stages: readonly runsV1.TaskStage__Output[]) => {
    const include = parseInclude(queryOf(request).include, STAGE_INCLUDES);
    if (include.size === 0) return undefined;
    const included = new Included();
    if (include.has('run') || include.has('run.workspace')) {
      const runs = await includeRuns(
        ctx,
        request,
        stages.map((s) => s.runId),
        included,
      );
      if (include.has('run.workspace')) await includeRunWorkspaces(ctx, request, runs, included);
    }
    if (include.has('policy_evaluations')) {
      const ids = stages.flatMap((s) => s.policyEvaluationIds);
      if (ids.length > 0) {
        const { policyEvaluations } = await clients.taskStages.BatchGetPolicyEvaluations(
          { ids },
          as(request),
        );
        included.add(policyEvaluations.map(serializePolicyEvaluation));
      }
    }
    return included;
  };

  app.get(
    '/runs/:id/task-stages',
    {
      schema: schema('task-stages', {
        summary: "List a run's task stages",
        params: IdParams,
        querystring: listQuery(STAGE_INCLUDES),
        response: { 200: listDocument(TASK_STAGE, { included: [RUN, WORKSPACE, POLICY_EVALUATION] }) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      parseInclude(query.include, STAGE_INCLUDES);
      const page = parsePage(query);
      const res = await clients.taskStages.ListRunTaskStages(
        { runId: paramsOf<'id'>(request).id, page },
        as(request),
      );
      const included = await includedFor(request, res.taskStages);
      return sendDocument(reply, 200, {
        data: res.taskStages.map(serializeTaskStage),
        ...(included ? { included: included.toArray() } : {}),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.get(
    '/task-stages/:id',
    {
      schema: schema('task-stages', {
        summary: 'Show a task stage',
        params: IdParams,
        querystring: query({}, { include: STAGE_INCLUDES }),
        response: { 200: resourceDocument(TASK_STAGE, { included: [RUN, WORKSPACE, POLICY_EVALUATION] }) },
      }),
    },
    async (request, reply) => {
      parseInclude(queryOf(request).include, STAGE_INCLUDES);
      const { taskStage } = await clients.taskStages.GetTaskStage(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      const included = await includedFor(request, [taskStage!]);
      return sendDocument(reply, 200, {
        data: serializeTaskStage(taskStage!),
        ...(included ? { included: included.toArray() } : {}),
      });
    },
  );

  app.post(
    '/task-stages/:id/actions/override',
    {
      schema: schema('task-stages', {
        summary: 'Override a task stage awaiting an override (its failed policy evaluations)',
        params: IdParams,
        body: OVERRIDE_BODY,
        'x-optional-body': true,
        response: { 200: resourceDocument(TASK_STAGE) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id } = paramsOf<'id'>(request);
      // A stage the caller cannot see is a 404 even with a bad body; a bad body changes nothing.
      const comment = await readAfterVisibilityCheck(
        () => readOverrideComment(validBody(request)),
        () => clients.taskStages.GetTaskStage({ id }, as(request)),
      );
      const { taskStage } = await clients.taskStages.OverrideTaskStage({ id, comment }, as(request));
      return sendDocument(reply, 200, { data: serializeTaskStage(taskStage!) });
    },
  );

  app.get(
    '/task-stages/:id/policy-evaluations',
    {
      schema: schema('policy-evaluations', {
        summary: "List a task stage's policy evaluations",
        params: IdParams,
        querystring: listQuery([]),
        response: { 200: listDocument(POLICY_EVALUATION) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      refuseInclude(query.include);
      const res = await clients.taskStages.ListTaskStagePolicyEvaluations(
        { taskStageId: paramsOf<'id'>(request).id, page: parsePage(query) },
        as(request),
      );
      return sendDocument(reply, 200, {
        data: res.policyEvaluations.map(serializePolicyEvaluation),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );
}
