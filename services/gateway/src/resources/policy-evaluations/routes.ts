import { refuseInclude } from '../../jsonapi/include.js';
import { type Api, type RouteContext, as, paramsOf, queryOf, sendDocument } from '../../route-context.js';
import { IdParams, query, resourceDocument, schema } from '../../schemas/common.js';
import { POLICY_EVALUATION } from './schema.js';
import { serializePolicyEvaluation } from './serializer.js';

export function registerPolicyEvaluationRoutes(app: Api, ctx: RouteContext): void {
  app.get(
    '/policy-evaluations/:id',
    {
      schema: schema('policy-evaluations', {
        summary: 'Show a policy evaluation',
        params: IdParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(POLICY_EVALUATION) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const { policyEvaluation } = await ctx.clients.taskStages.GetPolicyEvaluation(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      return sendDocument(reply, 200, { data: serializePolicyEvaluation(policyEvaluation!) });
    },
  );
}
