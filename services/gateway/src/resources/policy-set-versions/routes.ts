import type { policysetsV1 } from '@policyhub/contracts';
import type { FastifyRequest } from 'fastify';
import { Included } from '../../jsonapi/document.js';
import { parseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  paramsOf,
  queryOf,
  readAfterVisibilityCheck,
  sendDocument,
  pageDocument,
} from '../../route-context.js';
import { serializePolicySet } from '../policy-sets/serializer.js';
import { POLICY_SET } from '../policy-sets/schema.js';
import { POLICY_SET_VERSION } from './schema.js';
import { serializePolicySetVersion } from './serializer.js';
import { validBody } from '../../schemas/validation.js';
import { CREATE_VERSION_BODY, readCreateVersionBody } from './create-body.js';
import { IdParams, listDocument, listQuery, query, resourceDocument, schema } from '../../schemas/common.js';

const commaList = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((word) => word.trim())
    .filter(Boolean);

/** `include` values of version show and list. */
const VERSION_INCLUDES = ['policy_set'] as const;

/**
 * Policy set versions (ADR 0003). Create takes no body (clients send a body-less POST with the
 * JSON:API content type); the upload itself goes to the capability URL (resources/uploads).
 */
export function registerPolicySetVersionRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  /** The owning set as a full object, when asked for: one call, since all versions share it. */
  const includedSet = async (
    request: FastifyRequest,
    versions: policysetsV1.PolicySetVersion__Output[],
    include: ReadonlySet<string>,
  ): Promise<Included | undefined> => {
    if (!include.has('policy_set')) return undefined;
    const included = new Included();
    const setId = versions[0]?.policySetId;
    if (setId) {
      const { policySet } = await clients.policySets.GetPolicySet({ id: setId }, as(request));
      included.add([serializePolicySet(policySet!)]);
    }
    return included;
  };

  app.post(
    '/policy-sets/:id/versions',
    {
      schema: schema('policy-set-versions', {
        summary:
          'Create a policy set version (optional body: auto-promote); its upload URL is in links.upload',
        params: IdParams,
        body: CREATE_VERSION_BODY,
        'x-optional-body': true,
        response: { 201: resourceDocument(POLICY_SET_VERSION) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const policySetId = paramsOf<'id'>(request).id;
      // A set the caller cannot see is a 404 even with a bad body.
      const { autoPromote } = await readAfterVisibilityCheck(
        () => readCreateVersionBody(validBody(request)),
        () => clients.policySets.GetPolicySet({ id: policySetId }, as(request)),
      );
      const { version } = await clients.policySetVersions.CreatePolicySetVersion(
        { policySetId, ...(autoPromote === undefined ? {} : { autoPromote }) },
        as(request),
      );
      return sendDocument(reply, 201, { data: serializePolicySetVersion(version!, ctx.baseUrl(request)) });
    },
  );

  app.get(
    '/policy-set-versions/:id',
    {
      schema: schema('policy-set-versions', {
        summary: 'Show a policy set version',
        params: IdParams,
        querystring: query({}, { include: VERSION_INCLUDES }),
        response: { 200: resourceDocument(POLICY_SET_VERSION, { included: [POLICY_SET] }) },
      }),
    },
    async (request, reply) => {
      const include = parseInclude(queryOf(request).include, VERSION_INCLUDES);
      const { version } = await clients.policySetVersions.GetPolicySetVersion(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      const included = await includedSet(request, [version!], include);
      return sendDocument(reply, 200, {
        data: serializePolicySetVersion(version!, ctx.baseUrl(request)),
        ...(included ? { included: included.toArray() } : {}),
      });
    },
  );

  app.post(
    '/policy-set-versions/:id/actions/promote',
    {
      schema: schema('policy-set-versions', {
        summary: "Make a ready version its set's current version (a staged one, or an older one: a rollback)",
        params: IdParams,
        response: { 200: resourceDocument(POLICY_SET_VERSION) },
      }),
    },
    async (request, reply) => {
      const { version } = await clients.policySetVersions.PromotePolicySetVersion(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      return sendDocument(reply, 200, { data: serializePolicySetVersion(version!, ctx.baseUrl(request)) });
    },
  );

  app.get(
    '/policy-sets/:id/versions',
    {
      schema: schema('policy-set-versions', {
        summary: "List a policy set's versions (its history), newest first",
        params: IdParams,
        querystring: listQuery(VERSION_INCLUDES, {
          'filter[status]':
            'Comma-separated version statuses (pending, ready, errored): versions in any of them.',
        }),
        response: { 200: listDocument(POLICY_SET_VERSION, { included: [POLICY_SET] }) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      const include = parseInclude(query.include, VERSION_INCLUDES);
      const { id } = paramsOf<'id'>(request);
      const res = await clients.policySetVersions.ListPolicySetVersions(
        { policySetId: id, page, statuses: commaList(query['filter[status]']) },
        as(request),
      );
      const baseUrl = ctx.baseUrl(request);
      const included = await includedSet(request, res.versions, include);
      return sendDocument(reply, 200, {
        data: res.versions.map((v) => serializePolicySetVersion(v, baseUrl)),
        ...(included ? { included: included.toArray() } : {}),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );
}
