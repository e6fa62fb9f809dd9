import type { runsV1 } from '@policyhub/contracts';
import type { FastifyRequest } from 'fastify';
import { Included } from '../../jsonapi/document.js';
import { parseInclude } from '../../jsonapi/include.js';
import { hasPageParams, parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  paramsOf,
  queryOf,
  sendDocument,
  sendNoContent,
  pageDocument,
  readAfterVisibilityCheck,
} from '../../route-context.js';
import { includeRuns, includeRunWorkspaces } from '../runs/included.js';
import { translateReport } from '../../plugins/vocabulary.js';
import { readOverrideComment } from './override-body.js';
import { RUN } from '../runs/schema.js';
import { WORKSPACE } from '../workspaces/schema.js';
import { POLICY_CHECK } from './schema.js';
import { serializePolicyCheck } from './serializer.js';
import { IdParams, listDocument, listQuery, query, resourceDocument, schema } from '../../schemas/common.js';
import { describedAttribute } from '../../schemas/jsonapi.js';
import { validBody } from '../../schemas/validation.js';
import { Type } from '@sinclair/typebox';

/**
 * The optional justification: no body, `{"comment": "…"}` or `{"data": {"attributes": {"comment":
 * "…"}}}`. Its rules (unknown members, two different comments) are the reader's.
 */
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

const CHECK_INCLUDES = ['run', 'run.workspace'] as const;

export function registerPolicyCheckRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  /** `include=run` and/or `run.workspace` (which implies the runs too): one batch call each. */
  const includedFor = async (request: FastifyRequest, checks: readonly runsV1.PolicyCheck__Output[]) => {
    const include = parseInclude(queryOf(request).include, CHECK_INCLUDES);
    if (include.size === 0) return undefined;
    const included = new Included();
    const runs = await includeRuns(
      ctx,
      request,
      checks.map((c) => c.runId),
      included,
    );
    if (include.has('run.workspace')) await includeRunWorkspaces(ctx, request, runs, included);
    return included;
  };

  /** Unpaginated (every check) unless a page parameter is given (SPEC "Policy checks"). */
  app.get(
    '/runs/:id/policy-checks',
    {
      schema: schema('policy-checks', {
        summary: "List a run's policy checks (unpaginated unless a page parameter is sent)",
        params: IdParams,
        querystring: listQuery(CHECK_INCLUDES),
        response: { 200: listDocument(POLICY_CHECK, { paged: false, included: [RUN, WORKSPACE] }) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      parseInclude(query.include, CHECK_INCLUDES);
      const paginate = hasPageParams(query);
      const page = paginate ? parsePage(query) : null;
      const { id } = paramsOf<'id'>(request);
      const res = await clients.policyChecks.ListRunPolicyChecks({ runId: id, page }, as(request));
      const included = await includedFor(request, res.policyChecks);
      return sendDocument(reply, 200, {
        data: res.policyChecks.map(serializePolicyCheck),
        ...(included ? { included: included.toArray() } : {}),
        ...(paginate && res.page ? pageDocument(ctx, request, res.page) : {}),
      });
    },
  );

  app.get(
    '/policy-checks/:id',
    {
      schema: schema('policy-checks', {
        summary: 'Show a policy check',
        params: IdParams,
        querystring: query({}, { include: CHECK_INCLUDES }),
        response: { 200: resourceDocument(POLICY_CHECK, { included: [RUN, WORKSPACE] }) },
      }),
    },
    async (request, reply) => {
      parseInclude(queryOf(request).include, CHECK_INCLUDES);
      const { policyCheck } = await clients.policyChecks.GetPolicyCheck(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      const included = await includedFor(request, [policyCheck!]);
      return sendDocument(reply, 200, {
        data: serializePolicyCheck(policyCheck!),
        ...(included ? { included: included.toArray() } : {}),
      });
    },
  );

  app.post(
    '/policy-checks/:id/actions/override',
    {
      schema: schema('policy-checks', {
        summary: 'Override a soft-failed policy check',
        params: IdParams,
        body: OVERRIDE_BODY,
        'x-optional-body': true,
        response: { 200: resourceDocument(POLICY_CHECK) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id } = paramsOf<'id'>(request);
      // A check the caller cannot see is a 404 even with a bad body; a bad body changes nothing.
      const comment = await readAfterVisibilityCheck(
        () => readOverrideComment(validBody(request)),
        () => clients.policyChecks.GetPolicyCheck({ id }, as(request)),
      );
      const { policyCheck } = await clients.policyChecks.OverridePolicyCheck({ id, comment }, as(request));
      return sendDocument(reply, 200, { data: serializePolicyCheck(policyCheck!) });
    },
  );

  /** The evaluator's text report; 204 until there is one (upstream redirects to a log URL). */
  app.get(
    '/policy-checks/:id/output',
    {
      schema: schema('policy-checks', {
        summary: 'The text report of a policy check',
        produces: ['text/plain'],
        params: IdParams,
        response: { 200: Type.String({ description: 'The report (text/plain).' }) },
      }),
    },
    async (request, reply) => {
      const res = await clients.policyChecks.GetPolicyCheckOutput(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      if (!res.hasOutput) return sendNoContent(reply);
      return reply
        .status(200)
        .type('text/plain; charset=utf-8')
        .send(translateReport(res.output ?? '', ctx.wire));
    },
  );
}
