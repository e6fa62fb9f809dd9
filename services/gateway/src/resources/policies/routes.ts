import type { policysetsV1 } from '@policyhub/contracts';
import type { FastifyRequest } from 'fastify';
import { RequestDocument } from '../../jsonapi/body.js';
import { Included, single } from '../../jsonapi/document.js';
import { parseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
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
import { createPolicyFields, readPolicyAttributes, updatePolicyFields } from './body.js';
import { readKindFilter } from '../policy-sets/words.js';
import { registerPolicyCodeRoutes } from './code-routes.js';
import { POLICY_SET } from '../policy-sets/schema.js';
import { serializePolicySet } from '../policy-sets/serializer.js';
import { POLICY } from './schema.js';
import { serializePolicy } from './serializer.js';
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

const POLICY_INCLUDES = ['policy_sets'] as const;

/** Policies: the "separate interface" the spec refers to (upstream shapes, DOCS policies.mdx). */
export function registerPolicyRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  /** `include=policy_sets`: the sets holding the policies, in one batch call. */
  const includedFor = async (policies: policysetsV1.Policy__Output[], request: FastifyRequest) => {
    if (!parseInclude(queryOf(request).include, POLICY_INCLUDES).has('policy_sets')) return undefined;
    const ids = [...new Set(policies.flatMap((p) => p.policySetIds))];
    const included = new Included();
    if (ids.length === 0) return included;
    const { policySets } = await clients.policySets.BatchGetPolicySets({ ids }, as(request));
    const byId = new Map(policySets.map((s) => [s.id, serializePolicySet(s)]));
    included.add(ids.flatMap((id) => byId.get(id) ?? []));
    return included;
  };

  app.post(
    '/organizations/:org/policies',
    {
      schema: schema('policies', {
        summary: 'Create a policy',
        params: OrgParams,
        body: POLICY.body({ create: true }),
        response: { 201: resourceDocument(POLICY) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { org } = paramsOf<'org'>(request);
      const attrs = await readAfterVisibilityCheck(
        () => readPolicyAttributes(new RequestDocument(validBody(request))),
        () => clients.policies.ListPolicies({ organization: org, page: { number: 1, size: 1 } }, as(request)),
      );
      const { policy } = await clients.policies.CreatePolicy(
        { organization: org, ...createPolicyFields(attrs) },
        as(request),
      );
      return sendDocument(reply, 201, { data: serializePolicy(policy!) });
    },
  );

  app.get(
    '/organizations/:org/policies',
    {
      schema: schema('policies', {
        summary: "List an organization's policies",
        params: OrgParams,
        querystring: listQuery(POLICY_INCLUDES, {
          'search[name]': 'Policies whose name contains this text.',
          'filter[kind]': 'Only policies of this kind.',
        }),
        response: { 200: listDocument(POLICY, { included: [POLICY_SET] }) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      parseInclude(query.include, POLICY_INCLUDES);
      const { org } = paramsOf<'org'>(request);
      const kind = await readAfterVisibilityCheck(
        () => readKindFilter(query['filter[kind]']),
        () => clients.policies.ListPolicies({ organization: org, page: { number: 1, size: 1 } }, as(request)),
      );
      const res = await clients.policies.ListPolicies(
        { organization: org, page, searchName: query['search[name]'] ?? '', kind },
        as(request),
      );
      const included = await includedFor(res.policies, request);
      return sendDocument(reply, 200, {
        data: res.policies.map(serializePolicy),
        ...(included ? { included: included.toArray() } : {}),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.get(
    '/policies/:id',
    {
      schema: schema('policies', {
        summary: 'Show a policy',
        params: IdParams,
        querystring: query({}, { include: POLICY_INCLUDES }),
        response: { 200: resourceDocument(POLICY, { included: [POLICY_SET] }) },
      }),
    },
    async (request, reply) => {
      parseInclude(queryOf(request).include, POLICY_INCLUDES);
      const { policy } = await clients.policies.GetPolicy({ id: paramsOf<'id'>(request).id }, as(request));
      return sendDocument(
        reply,
        200,
        single(serializePolicy(policy!), await includedFor([policy!], request)),
      );
    },
  );

  app.patch(
    '/policies/:id',
    {
      schema: schema('policies', {
        summary: 'Update a policy',
        params: IdParams,
        body: POLICY.body({ create: false }),
        response: { 200: resourceDocument(POLICY) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id } = paramsOf<'id'>(request);
      const attrs = await readAfterVisibilityCheck(
        () => readPolicyAttributes(new RequestDocument(validBody(request))),
        () => clients.policies.GetPolicy({ id }, as(request)),
      );
      const { policy } = await clients.policies.UpdatePolicy(
        { id, ...updatePolicyFields(attrs) },
        as(request),
      );
      return sendDocument(reply, 200, { data: serializePolicy(policy!) });
    },
  );

  app.delete(
    '/policies/:id',
    {
      schema: schema('policies', {
        summary: 'Delete a policy',
        params: IdParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.policies.DeletePolicy({ id: paramsOf<'id'>(request).id }, as(request));
      return sendNoContent(reply);
    },
  );

  registerPolicyCodeRoutes(app, ctx);
}
