import { sendServerStream, STREAM_DEADLINE_MS } from '../../grpc-streams.js';
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
  sendDocument,
} from '../../route-context.js';
import { CONFIGURATION_VERSION } from './schema.js';
import { serializeConfigurationVersion } from './serializer.js';
import { IdParams, listDocument, listQuery, query, resourceDocument, schema } from '../../schemas/common.js';
import { validBody } from '../../schemas/validation.js';
import { Type } from '@sinclair/typebox';

/**
 * Configuration versions (upstream's API-driven workflow): create with an upload URL (the PUT goes
 * to resources/uploads, like policy set versions), show, list a workspace's, download the archive.
 */
export function registerConfigurationVersionRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post(
    '/workspaces/:id/configuration-versions',
    {
      schema: schema('configuration-versions', {
        summary: 'Create a configuration version (the body is optional)',
        'x-optional-body': true,
        params: IdParams,
        body: CONFIGURATION_VERSION.body({ create: true, typeOptional: true }),
        response: { 201: resourceDocument(CONFIGURATION_VERSION) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      // Upstream's defaults: runs are queued on upload; not speculative. A body-less POST is fine.
      const doc =
        request.body === undefined || request.body === null
          ? undefined
          : new RequestDocument(validBody(request));
      const autoQueueRuns = doc?.boolean('auto-queue-runs') ?? true;
      const speculative = doc?.boolean('speculative') ?? false;
      const provisional = doc?.boolean('provisional') ?? false;
      const { configurationVersion } = await clients.configurationVersions.CreateConfigurationVersion(
        { workspaceId: paramsOf<'id'>(request).id, autoQueueRuns, speculative, provisional },
        as(request),
      );
      return sendDocument(reply, 201, {
        data: serializeConfigurationVersion(configurationVersion!, ctx.baseUrl(request)),
      });
    },
  );

  app.get(
    '/configuration-versions/:id',
    {
      schema: schema('configuration-versions', {
        summary: 'Show a configuration version',
        params: IdParams,
        querystring: query({}, { include: [] }),
        response: { 200: resourceDocument(CONFIGURATION_VERSION) },
      }),
    },
    async (request, reply) => {
      refuseInclude(queryOf(request).include);
      const { configurationVersion } = await clients.configurationVersions.GetConfigurationVersion(
        { id: paramsOf<'id'>(request).id },
        as(request),
      );
      return sendDocument(reply, 200, {
        data: serializeConfigurationVersion(configurationVersion!, ctx.baseUrl(request)),
      });
    },
  );

  app.get(
    '/workspaces/:id/configuration-versions',
    {
      schema: schema('configuration-versions', {
        summary: "List a workspace's configuration versions",
        params: IdParams,
        querystring: listQuery([]),
        response: { 200: listDocument(CONFIGURATION_VERSION) },
      }),
    },
    async (request, reply) => {
      const page = parsePage(queryOf(request));
      refuseInclude(queryOf(request).include);
      const res = await clients.configurationVersions.ListWorkspaceConfigurationVersions(
        { workspaceId: paramsOf<'id'>(request).id, page },
        as(request),
      );
      const baseUrl = ctx.baseUrl(request);
      return sendDocument(reply, 200, {
        data: res.configurationVersions.map((v) => serializeConfigurationVersion(v, baseUrl)),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  /** The tar.gz as uploaded, streamed (upstream redirects to a temporary URL; clients follow). */
  app.get(
    '/configuration-versions/:id/download',
    {
      schema: schema('configuration-versions', {
        summary: 'Download the uploaded configuration (tar.gz)',
        produces: ['application/octet-stream'],
        params: IdParams,
        response: { 200: Type.String({ description: 'The archive.' }) },
      }),
    },
    async (request, reply) => {
      const call = clients.configurationVersions.raw.DownloadConfigurationVersion(
        { id: paramsOf<'id'>(request).id },
        clients.configurationVersions.metadata(as(request)),
        { deadline: Date.now() + STREAM_DEADLINE_MS },
      );
      return sendServerStream(reply, 'application/octet-stream', call);
    },
  );
}
