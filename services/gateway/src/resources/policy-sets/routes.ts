import { single } from '../../jsonapi/document.js';
import { AppError } from '@policyhub/errors';
import { RequestDocument } from '../../jsonapi/body.js';
import { parseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type Query,
  type RouteContext,
  as,
  paramsOf,
  queryOf,
  sendDocument,
  sendNoContent,
  pageDocument,
  readAfterVisibilityCheck,
} from '../../route-context.js';
import {
  createRequest,
  ignoreInapplicableAgentAttributes,
  readPolicySetBody,
  touchesAgentAttributes,
  updateRequest,
} from './body.js';
import { includedFor, POLICY_SET_INCLUDES } from './included.js';
import { registerPolicySetRelationshipRoutes } from './relationship-routes.js';
import { POLICY } from '../policies/schema.js';
import { POLICY_SET_VERSION } from '../policy-set-versions/schema.js';
import { PROJECT } from '../projects/schema.js';
import { WORKSPACE } from '../workspaces/schema.js';
import { POLICY_SET } from './schema.js';
import { serializePolicySet } from './serializer.js';
import { readKindFilter } from './words.js';
import {
  IdParams,
  NoContent,
  OrgParams,
  listDocument,
  listQuery,
  query,
  resourceDocument,
  schema,
} from '../../schemas/common.js';
import { validBody } from '../../schemas/validation.js';

/** `filter[versioned]`: absent = all sets; otherwise exactly `true` or `false`. */
function readVersionedFilter(query: Query): boolean | undefined {
  const raw = query['filter[versioned]'];
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new AppError('invalid', 'GATEWAY_INVALID_FILTER', [
    {
      title: 'invalid attribute',
      detail: 'filter[versioned] must be true or false',
      parameter: 'filter[versioned]',
    },
  ]);
}

export function registerPolicySetRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post(
    '/organizations/:org/policy-sets',
    {
      schema: schema('policy-sets', {
        summary: 'Create a policy set',
        params: OrgParams,
        body: POLICY_SET.body({ create: true }),
        response: { 201: resourceDocument(POLICY_SET) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { org } = paramsOf<'org'>(request);
      const body = await readAfterVisibilityCheck(
        () => readPolicySetBody(new RequestDocument(validBody(request))),
        () =>
          clients.policySets.ListPolicySets({ organization: org, page: { number: 1, size: 1 } }, as(request)),
      );
      const lenient = ctx.wire.agentLeniency ? ignoreInapplicableAgentAttributes(body) : body;
      const { policySet } = await clients.policySets.CreatePolicySet(
        createRequest(org, lenient),
        as(request),
      );
      return sendDocument(reply, 201, { data: serializePolicySet(policySet!) });
    },
  );

  app.get(
    '/organizations/:org/policy-sets',
    {
      schema: schema('policy-sets', {
        summary: "List an organization's policy sets",
        params: OrgParams,
        querystring: listQuery(POLICY_SET_INCLUDES, {
          'search[name]': 'Sets whose name contains this text.',
          'filter[kind]': 'Only sets of this kind.',
          'filter[versioned]': 'true: only sets with versions; false: only sets without.',
        }),
        response: {
          200: listDocument(POLICY_SET, {
            included: [POLICY, WORKSPACE, PROJECT, POLICY_SET_VERSION],
          }),
        },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      const include = parseInclude(query.include, POLICY_SET_INCLUDES);
      const versioned = readVersionedFilter(query);
      const { org } = paramsOf<'org'>(request);
      const kind = await readAfterVisibilityCheck(
        () => readKindFilter(query['filter[kind]']),
        () =>
          clients.policySets.ListPolicySets({ organization: org, page: { number: 1, size: 1 } }, as(request)),
      );
      const res = await clients.policySets.ListPolicySets(
        { organization: org, page, searchName: query['search[name]'] ?? '', kind, versioned },
        as(request),
      );
      const included = await includedFor(res.policySets, include, ctx, request);
      return sendDocument(reply, 200, {
        data: res.policySets.map(serializePolicySet),
        ...(included ? { included: included.toArray() } : {}),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.get(
    '/policy-sets/:id',
    {
      schema: schema('policy-sets', {
        summary: 'Show a policy set',
        params: IdParams,
        querystring: query({}, { include: POLICY_SET_INCLUDES }),
        response: {
          200: resourceDocument(POLICY_SET, {
            included: [POLICY, WORKSPACE, PROJECT, POLICY_SET_VERSION],
          }),
        },
      }),
    },
    async (request, reply) => {
      const include = parseInclude(queryOf(request).include, POLICY_SET_INCLUDES);
      const { policySet } = await clients.policySets.GetPolicySet(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      return sendDocument(
        reply,
        200,
        single(serializePolicySet(policySet!), await includedFor([policySet!], include, ctx, request)),
      );
    },
  );

  app.patch(
    '/policy-sets/:id',
    {
      schema: schema('policy-sets', {
        summary: 'Update a policy set',
        params: IdParams,
        body: POLICY_SET.body({ create: false }),
        response: { 200: resourceDocument(POLICY_SET) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id } = paramsOf<'id'>(request);
      const body = await readAfterVisibilityCheck(
        () => readPolicySetBody(new RequestDocument(validBody(request))),
        () => clients.policySets.GetPolicySet({ id }, as(request)),
      );
      let lenient = body;
      if (ctx.wire.agentLeniency && touchesAgentAttributes(body)) {
        const { policySet: current } = await clients.policySets.GetPolicySet({ id }, as(request));
        lenient = ignoreInapplicableAgentAttributes(body, current!);
      }
      const { policySet } = await clients.policySets.UpdatePolicySet(updateRequest(id, lenient), as(request));
      return sendDocument(reply, 200, { data: serializePolicySet(policySet!) });
    },
  );

  app.delete(
    '/policy-sets/:id',
    {
      schema: schema('policy-sets', {
        summary: 'Delete a policy set',
        params: IdParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.policySets.DeletePolicySet({ id: paramsOf<'id'>(request).id }, as(request));
      return sendNoContent(reply);
    },
  );

  registerPolicySetRelationshipRoutes(app, ctx);
}
