import type { FastifyInstance } from 'fastify';
import { sendServerStream, STREAM_DEADLINE_MS } from '../../grpc-streams.js';
import { RequestDocument } from '../../jsonapi/body.js';
import { refuseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import { type RouteContext, as, pageDocument, paramsOf, queryOf, sendDocument } from '../../route-context.js';
import { serializeConfigurationVersion } from './serializer.js';

/**
 * Configuration versions (upstream's API-driven workflow): create with an upload URL (the PUT goes
 * to resources/uploads, like policy set versions), show, list a workspace's, download the archive.
 */
export function registerConfigurationVersionRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { clients } = ctx;

  app.post('/workspaces/:id/configuration-versions', async (request, reply) => {
    // Upstream's defaults: runs are queued on upload; not speculative. A body-less POST is fine.
    const doc =
      request.body === undefined || request.body === null
        ? undefined
        : new RequestDocument(request.body, 'configuration-versions', { typeOptional: true });
    const autoQueueRuns = doc?.boolean('auto-queue-runs') ?? true;
    const speculative = doc?.boolean('speculative') ?? false;
    const provisional = doc?.boolean('provisional') ?? false;
    doc?.done();
    const version = await clients.configurationVersions.CreateConfigurationVersion(
      { workspaceId: paramsOf<'id'>(request).id, autoQueueRuns, speculative, provisional },
      as(request),
    );
    return sendDocument(reply, 201, { data: serializeConfigurationVersion(version, ctx.baseUrl(request)) });
  });

  app.get('/configuration-versions/:id', async (request, reply) => {
    refuseInclude(queryOf(request).include);
    const version = await clients.configurationVersions.GetConfigurationVersion(
      { id: paramsOf<'id'>(request).id },
      as(request),
    );
    return sendDocument(reply, 200, { data: serializeConfigurationVersion(version, ctx.baseUrl(request)) });
  });

  app.get('/workspaces/:id/configuration-versions', async (request, reply) => {
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
  });

  /** The tar.gz as uploaded, streamed (upstream redirects to a temporary URL; clients follow). */
  app.get('/configuration-versions/:id/download', async (request, reply) => {
    const call = clients.configurationVersions.raw.DownloadConfigurationVersion(
      { id: paramsOf<'id'>(request).id },
      clients.configurationVersions.metadata(as(request)),
      { deadline: Date.now() + STREAM_DEADLINE_MS },
    );
    return sendServerStream(reply, 'application/octet-stream', call);
  });
}
