import { AppError } from '@policyhub/errors';
import type { FastifyInstance } from 'fastify';
import { RequestDocument } from '../../jsonapi/body.js';
import { single } from '../../jsonapi/document.js';
import { parseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Query,
  type RouteContext,
  as,
  paramsOf,
  queryOf,
  sendDocument,
  sendNoContent,
  pageDocument,
} from '../../route-context.js';
import { canonicalKind } from '../../vocabulary.js';
import { readAfterVisibilityCheck } from '../policies/read-after-visibility-check.js';
import {
  createRequest,
  ignoreInapplicableAgentAttributes,
  readPolicySetBody,
  touchesAgentAttributes,
  updateRequest,
} from './body.js';
import { includedFor, POLICY_SET_INCLUDES } from './included.js';
import { registerPolicySetRelationshipRoutes } from './relationship-routes.js';
import { serializePolicySet } from './serializer.js';

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

export function registerPolicySetRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post('/organizations/:org/policy-sets', async (request, reply) => {
    const { org } = paramsOf<'org'>(request);
    const body = await readAfterVisibilityCheck(
      () => readPolicySetBody(new RequestDocument(request.body, 'policy-sets'), { create: true }),
      () =>
        clients.policySets.ListPolicySets({ organization: org, page: { number: 1, size: 1 } }, as(request)),
    );
    const lenient = ctx.wire.agentLeniency ? ignoreInapplicableAgentAttributes(body) : body;
    const set = await clients.policySets.CreatePolicySet(createRequest(org, lenient), as(request));
    return sendDocument(reply, 201, { data: serializePolicySet(set) });
  });

  app.get('/organizations/:org/policy-sets', async (request, reply) => {
    const query = queryOf(request);
    const page = parsePage(query);
    const include = parseInclude(query.include, POLICY_SET_INCLUDES);
    const versioned = readVersionedFilter(query);
    const { org } = paramsOf<'org'>(request);
    const res = await clients.policySets.ListPolicySets(
      {
        organization: org,
        page,
        searchName: query['search[name]'] ?? '',
        kind: query['filter[kind]'] ? canonicalKind(query['filter[kind]']) : '',
        versioned,
      },
      as(request),
    );
    const included = await includedFor(res.policySets, include, ctx, request);
    return sendDocument(reply, 200, {
      data: res.policySets.map(serializePolicySet),
      ...(included ? { included: included.toArray() } : {}),
      ...pageDocument(ctx, request, res.page!),
    });
  });

  app.get('/policy-sets/:id', async (request, reply) => {
    const include = parseInclude(queryOf(request).include, POLICY_SET_INCLUDES);
    const set = await clients.policySets.GetPolicySet({ id: paramsOf<'id'>(request).id }, as(request));
    return sendDocument(
      reply,
      200,
      single(serializePolicySet(set), await includedFor([set], include, ctx, request)),
    );
  });

  app.patch('/policy-sets/:id', async (request, reply) => {
    const { id } = paramsOf<'id'>(request);
    const body = await readAfterVisibilityCheck(
      () => readPolicySetBody(new RequestDocument(request.body, 'policy-sets'), { create: false }),
      () => clients.policySets.GetPolicySet({ id }, as(request)),
    );
    let lenient = body;
    if (ctx.wire.agentLeniency && touchesAgentAttributes(body)) {
      const current = await clients.policySets.GetPolicySet({ id }, as(request));
      lenient = ignoreInapplicableAgentAttributes(body, current);
    }
    const set = await clients.policySets.UpdatePolicySet(updateRequest(id, lenient), as(request));
    return sendDocument(reply, 200, { data: serializePolicySet(set) });
  });

  app.delete('/policy-sets/:id', async (request, reply) => {
    await clients.policySets.DeletePolicySet({ id: paramsOf<'id'>(request).id }, as(request));
    return sendNoContent(reply);
  });

  registerPolicySetRelationshipRoutes(app, ctx);
}
