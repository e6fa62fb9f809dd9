import { pageInfo, pageWindow, type Queryable } from '@policyhub/db';
import { newId, notFound } from '@policyhub/errors';
import type { Principal } from '@policyhub/permissions';
import {
  ConfigurationVersionRepository,
  type ConfigurationVersionRow,
} from '../db/configuration-version-repository.js';
import {
  CV_STATUS,
  CV_UPLOAD_OWNER_KIND,
  autoQueuedRunMessage,
  cvUploadExpiry,
} from '../domain/configuration-versions.js';
import { CREATE_RUNS, READ_RUNS, requirePermission, requirePrincipal } from '../domain/rules.js';
import { withStatusTimestamp } from '../domain/run-status.js';
import type { Deps } from '../deps.js';
import { permittedWorkspace } from './access.js';
import { insertRun } from './run-creation.js';

type Page = { number?: number; size?: number } | null | undefined;

/** Configuration versions of workspaces (upstream's API-driven workflow). */
export class ConfigurationVersionUseCases {
  private readonly versions: ConfigurationVersionRepository;

  constructor(private readonly deps: Deps) {
    this.versions = new ConfigurationVersionRepository(deps.db);
  }

  /** A pending version with a single-use upload URL (storage session bound to it). */
  async create(
    principal: Principal | undefined,
    input: { workspaceId: string; autoQueueRuns: boolean; speculative: boolean; provisional: boolean },
  ): Promise<ConfigurationVersionRow> {
    const caller = requirePrincipal(principal);
    const workspace = await permittedWorkspace(this.deps, caller, input.workspaceId, CREATE_RUNS);
    const id = newId('cv');
    const createdAt = new Date();
    const session = await this.deps.uploadSessions.create({
      organization: workspace.organization,
      organizationId: workspace.organizationId,
      ownerKind: CV_UPLOAD_OWNER_KIND,
      ownerId: id,
      ownerParentId: workspace.id,
      expiresAt: cvUploadExpiry(createdAt).toISOString(),
      // The URL is the creator's right to upload, good only while they still hold it.
      createdBy: caller.userId,
      requiredPermission: CREATE_RUNS,
    });
    // Storage's session exists now; if this insert fails it simply expires unused.
    return this.versions.insert({
      id,
      organization: workspace.organization,
      organizationId: workspace.organizationId,
      workspaceId: workspace.id,
      autoQueueRuns: input.autoQueueRuns,
      speculative: input.speculative,
      provisional: input.provisional,
      statusTimestamps: withStatusTimestamp({}, CV_STATUS.pending, createdAt),
      uploadSessionId: session.sessionId,
      uploadExpiresAt: session.expiresAt,
      createdBy: caller.userId,
      createdAt: createdAt.toISOString(),
    });
  }

  async get(principal: Principal | undefined, id: string): Promise<ConfigurationVersionRow> {
    const version = await this.versions.get(id);
    if (!version) throw notFound('RUNS_CONFIGURATION_VERSION_NOT_FOUND');
    requirePermission(
      principal,
      version.organization,
      READ_RUNS,
      'RUNS_CONFIGURATION_VERSION_NOT_FOUND',
      version.organization_id,
    );
    return version;
  }

  async listByWorkspace(principal: Principal | undefined, workspaceId: string, page: Page) {
    await permittedWorkspace(this.deps, requirePrincipal(principal), workspaceId, READ_RUNS);
    const w = pageWindow(page);
    const { rows, total } = await this.versions.listByWorkspace(workspaceId, w.size, w.offset);
    return { versions: rows, page: pageInfo(w, total) };
  }

  /** The archive of an uploaded version; NOT_FOUND before (and for callers without read-runs). */
  async openArchive(principal: Principal | undefined, id: string): Promise<AsyncIterable<Buffer>> {
    const version = await this.get(principal, id);
    if (version.status !== CV_STATUS.uploaded || !version.object_key)
      throw notFound('RUNS_CONFIGURATION_VERSION_ARCHIVE_NOT_FOUND');
    const stream = await this.deps.streams.openReader(version.object_key);
    if (!stream) throw notFound('RUNS_CONFIGURATION_VERSION_ARCHIVE_NOT_FOUND');
    return stream;
  }
}

/** What storage reports about the upload to a configuration version (storage.upload-completed). */
export type ConfigurationUpload =
  | { versionId: string; ok: true; objectKey: string; sizeBytes: number; sha256: string }
  | { versionId: string; ok: false; errorCode: string; errorMessage: string };

/**
 * Applies an upload's outcome inside the consumer's transaction: uploaded or errored; an upload
 * to a version with auto-queue-runs also queues a run on it (plan-only when the version is
 * speculative), created for the user who created the version. A version no longer pending (the
 * event came again) or gone (its workspace was deleted) is left alone, so the effect happens
 * exactly once.
 */
export async function applyConfigurationUpload(tx: Queryable, upload: ConfigurationUpload): Promise<void> {
  const repo = new ConfigurationVersionRepository(tx);
  const version = await repo.get(upload.versionId, { forUpdate: true });
  if (!version || version.status !== CV_STATUS.pending) return;
  const now = new Date();
  if (!upload.ok) {
    const timestamps = withStatusTimestamp(version.status_timestamps, CV_STATUS.errored, now);
    await repo.settle(
      version.id,
      {
        status: 'errored',
        error: upload.errorCode || 'UPLOAD_FAILED',
        errorMessage: upload.errorMessage || 'the upload could not be processed',
      },
      timestamps,
    );
    return;
  }
  const timestamps = withStatusTimestamp(version.status_timestamps, CV_STATUS.uploaded, now);
  await repo.settle(
    version.id,
    { status: 'uploaded', objectKey: upload.objectKey, sizeBytes: upload.sizeBytes, sha256: upload.sha256 },
    timestamps,
  );
  if (version.auto_queue_runs) {
    await insertRun(tx, {
      organization: version.organization,
      organizationId: version.organization_id ?? '',
      workspaceId: version.workspace_id,
      message: autoQueuedRunMessage(version.id),
      planOnly: version.speculative,
      // Upstream's auto-queued runs of an upload are never destroy runs.
      isDestroy: false,
      configurationVersionId: version.id,
      createdBy: version.created_by,
    });
  }
}
