import { AppError } from '@policyhub/errors';
import { refuseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  pageDocument,
  paramsOf,
  queryOf,
  sendDocument,
} from '../../route-context.js';
import { IdParams, listDocument, listQuery, query, resourceDocument, schema } from '../../schemas/common.js';
import { POLICY_SET_OUTCOME } from './schema.js';
import { serializePolicySetOutcome } from './serializer.js';

const STATUSES = new Set(['passed', 'failed', 'errored']);
const LEVELS = new Set(['advisory', 'mandatory']);
const FILTER = /^filter\[(\d{1,3})\]\[(status|enforcement_level|enforcementLevel|enforcement-level)\]$/;

/**
 * `filter[n][status]` and `filter[n][enforcement_level]` (also `enforcementLevel`, as go-tfe
 * sends it): within one `n` both must match, the `n`s are OR-ed. Unknown values are a 422.
 */
export function readOutcomeFilters(
  query: Record<string, string | undefined>,
): Array<{ status?: string; enforcementLevel?: string }> {
  const byIndex = new Map<string, { status?: string; enforcementLevel?: string }>();
  for (const [key, value] of Object.entries(query)) {
    const match = FILTER.exec(key);
    if (!match || value === undefined || value === '') continue;
    const [, index, member] = match;
    const isStatus = member === 'status';
    if (!(isStatus ? STATUSES : LEVELS).has(value)) {
      throw new AppError('invalid', 'GATEWAY_INVALID_FILTER', [
        {
          title: 'invalid attribute',
          detail: `${key} must be ${[...(isStatus ? STATUSES : LEVELS)].join(', ')}`,
          parameter: key,
        },
      ]);
    }
    const filter = byIndex.get(index!) ?? {};
    if (isStatus) filter.status = value;
    else filter.enforcementLevel = value;
    byIndex.set(index!, filter);
  }
  return [...byIndex.values()];
}

export function registerPolicySetOutcomeRoutes(app: Api, ctx: RouteContext): void {
  app.get(
    '/policy-evaluations/:id/policy-set-outcomes',
    {
      schema: schema('policy-set-outcomes', {
        summary: "List a policy evaluation's policy set outcomes",
        params: IdParams,
        querystring: listQuery([], {
          'filter[n][status]':
            'Only sets with a policy of this status (passed, failed, errored); n = 0, 1, …',
          'filter[n][enforcement_level]':
            'Only sets with a policy of this level (advisory, mandatory). Filters with the same n must all match; different n are OR-ed.',
          'filter[n][enforcementLevel]': "Same as filter[n][enforcement_level] (go-tfe's spelling).",
          'filter[n][enforcement-level]': 'Same as filter[n][enforcement_level].',
        }),
        response: { 200: listDocument(POLICY_SET_OUTCOME) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      refuseInclude(query.include);
      const filters = readOutcomeFilters(query);
      const res = await ctx.clients.taskStages.ListPolicySetOutcomes(
        { policyEvaluationId: paramsOf<'id'>(request).id, page: parsePage(query), filters },
        as(request),
      );
      return sendDocument(reply, 200, {
        data: res.policySetOutcomes.map(serializePolicySetOutcome),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.get(
    '/policy-set-outcomes/:id',
    {
      schema: schema('policy-set-outcomes', {
        summary: 'Show a policy set outcome',
        params: IdParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(POLICY_SET_OUTCOME) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const { policySetOutcome } = await ctx.clients.taskStages.GetPolicySetOutcome(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      return sendDocument(reply, 200, { data: serializePolicySetOutcome(policySetOutcome!) });
    },
  );
}
