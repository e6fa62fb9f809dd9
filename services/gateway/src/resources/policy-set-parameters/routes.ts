import type { FastifyRequest } from 'fastify';
import { RequestDocument } from '../../jsonapi/body.js';
import { refuseInclude } from '../../jsonapi/include.js';
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
  sendNoContent,
} from '../../route-context.js';
import {
  IdParams,
  listDocument,
  listQuery,
  NoContent,
  params,
  query,
  resourceDocument,
  schema,
} from '../../schemas/common.js';
import { validBody } from '../../schemas/validation.js';
import { POLICY_SET_PARAMETER } from './schema.js';
import { serializePolicySetParameter } from './serializer.js';

const ParameterParams = params('id', 'parameter_id');

/** The attributes of a create or update body (the route schema checked their JSON types). */
function readParameterAttributes(request: FastifyRequest) {
  const doc = new RequestDocument(validBody(request));
  return {
    key: doc.string('key'),
    // null is "not sent" for a value: it keeps the value (and is "" on create).
    value: doc.string('value'),
    category: doc.string('category'),
    sensitive: doc.boolean('sensitive'),
  };
}

/**
 * Policy set parameters, upstream's paths and `vars` resource. manage-policies in the set's
 * organization for everything; a hidden set answers 404 before its body is judged.
 */
export function registerPolicySetParameterRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;
  const setVisible = (request: FastifyRequest, id: string) =>
    clients.policySetParameters.ListPolicySetParameters(
      { policySetId: id, page: { number: 1, size: 1 } },
      as(request),
    );

  app.get(
    '/policy-sets/:id/parameters',
    {
      schema: schema('policy-set-parameters', {
        summary: "List a policy set's parameters",
        params: IdParams,
        querystring: listQuery([]),
        response: { 200: listDocument(POLICY_SET_PARAMETER) },
      }),
    },
    async (request, reply) => {
      const q = queryOf(request);
      const page = parsePage(q);
      refuseInclude(q.include);
      const { id } = paramsOf<'id'>(request);
      const res = await clients.policySetParameters.ListPolicySetParameters(
        { policySetId: id, page },
        as(request),
      );
      return sendDocument(reply, 200, {
        data: res.parameters.map(serializePolicySetParameter),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.post(
    '/policy-sets/:id/parameters',
    {
      schema: schema('policy-set-parameters', {
        summary: 'Create a policy set parameter',
        params: IdParams,
        body: POLICY_SET_PARAMETER.body({ create: true }),
        response: { 201: resourceDocument(POLICY_SET_PARAMETER) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id } = paramsOf<'id'>(request);
      const attrs = await readAfterVisibilityCheck(
        () => readParameterAttributes(request),
        () => setVisible(request, id),
      );
      const { parameter } = await clients.policySetParameters.CreatePolicySetParameter(
        { policySetId: id, ...attrs, key: attrs.key ?? '' },
        as(request),
      );
      return sendDocument(reply, 201, { data: serializePolicySetParameter(parameter!) });
    },
  );

  app.get(
    '/policy-sets/:id/parameters/:parameter_id',
    {
      schema: schema('policy-set-parameters', {
        summary: 'Show a policy set parameter',
        params: ParameterParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(POLICY_SET_PARAMETER) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const { id, parameter_id } = paramsOf<'id' | 'parameter_id'>(request);
      const { parameter } = await clients.policySetParameters.GetPolicySetParameter(
        { policySetId: id, id: parameter_id },
        as(request),
      );
      return sendDocument(reply, 200, { data: serializePolicySetParameter(parameter!) });
    },
  );

  app.patch(
    '/policy-sets/:id/parameters/:parameter_id',
    {
      schema: schema('policy-set-parameters', {
        summary: 'Update a policy set parameter (absent attributes keep their values)',
        params: ParameterParams,
        body: POLICY_SET_PARAMETER.body({ create: false }),
        response: { 200: resourceDocument(POLICY_SET_PARAMETER) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const { id, parameter_id } = paramsOf<'id' | 'parameter_id'>(request);
      const attrs = await readAfterVisibilityCheck(
        () => readParameterAttributes(request),
        () =>
          clients.policySetParameters.GetPolicySetParameter(
            { policySetId: id, id: parameter_id },
            as(request),
          ),
      );
      const { parameter } = await clients.policySetParameters.UpdatePolicySetParameter(
        { policySetId: id, id: parameter_id, ...attrs },
        as(request),
      );
      return sendDocument(reply, 200, { data: serializePolicySetParameter(parameter!) });
    },
  );

  app.delete(
    '/policy-sets/:id/parameters/:parameter_id',
    {
      schema: schema('policy-set-parameters', {
        summary: 'Delete a policy set parameter',
        params: ParameterParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      const { id, parameter_id } = paramsOf<'id' | 'parameter_id'>(request);
      await clients.policySetParameters.DeletePolicySetParameter(
        { policySetId: id, id: parameter_id },
        as(request),
      );
      return sendNoContent(reply);
    },
  );
}
