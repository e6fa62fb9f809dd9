import { pageInfo, pageWindow } from '@policyhub/db';
import { conflict, invalidAttribute, newId, notFound, unprocessable } from '@policyhub/errors';
import { auditActorOf } from '@policyhub/events';
import type { Principal } from '@policyhub/permissions';
import { VersionRepository, type VersionRow } from '../db/version-repository.js';
import type { Deps } from '../deps.js';
import { recordAudit } from '../events/audit.js';
import { canManagePolicies, MANAGE_POLICIES } from '../domain/access.js';
import { checkFreeTierApiVersions } from '../domain/free-tier.js';
import {
  API_VERSION_SOURCE,
  archiveLayoutFor,
  canTakeUploadedVersions,
  uploadExpiry,
  VERSION_STATUSES,
  type VersionStatus,
  VERSIONS_NOT_SUPPORTED_MESSAGE,
} from '../domain/versions.js';
import type { PageRequest } from './page.js';

const notSupported = () =>
  unprocessable('POLICY_SETS_VERSIONS_NOT_SUPPORTED', VERSIONS_NOT_SUPPORTED_MESSAGE);

/** `filter[status]`: words of VERSION_STATUSES; anything else is a 422 naming the parameter. */
function readStatuses(words: readonly string[]): VersionStatus[] {
  const known: ReadonlySet<string> = new Set(VERSION_STATUSES);
  for (const word of words) {
    if (!known.has(word)) {
      throw invalidAttribute(
        'POLICY_SETS_INVALID_FILTER',
        'filter.status',
        `filter[status] must be a comma-separated list of ${VERSION_STATUSES.join(', ')}`,
      );
    }
  }
  return [...new Set(words)] as VersionStatus[];
}

const isVisible = (
  principal: Principal | undefined,
  row: { organization: string; organization_id: string | null },
) => canManagePolicies(principal, row.organization, row.organization_id);

/**
 * Policy set versions: create (pending, with an upload session from storage), show, list and batch
 * get. Everything needs manage-policies on the set's organization; otherwise 404. The outcome of
 * an upload arrives as an event (upload-completed.ts).
 */
export class PolicySetVersionUseCases {
  private readonly versions: VersionRepository;

  constructor(private readonly deps: Deps) {
    this.versions = new VersionRepository(deps.db);
  }

  private async visibleSet(principal: Principal | undefined, id: string) {
    const set = await this.versions.getSet(id);
    if (!set || !isVisible(principal, set)) throw notFound();
    return set;
  }

  /**
   * A pending version with an upload URL. `autoPromote` (default true) makes it the set's current
   * version once its upload is ready; false keeps it staged until promoted.
   */
  async create(
    principal: Principal | undefined,
    policySetId: string,
    options: { autoPromote?: boolean } = {},
  ): Promise<VersionRow> {
    const autoPromote = options.autoPromote ?? true;
    const { db, tenancy, uploadSessions, uploadUrlTtlMs } = this.deps;
    const set = await this.visibleSet(principal, policySetId);
    if (!canTakeUploadedVersions({ hasVcsRepo: set.has_vcs_repo, hasPolicies: set.has_policies }))
      throw notSupported();
    if ((await tenancy.organization(principal, set.organization)).isFreeTier) checkFreeTierApiVersions();

    const id = newId('polsetver');
    const createdAt = new Date();
    const session = await uploadSessions.create({
      organization: set.organization,
      organizationId: set.organization_id,
      versionId: id,
      policySetId: set.id,
      expiresAt: uploadExpiry(createdAt, uploadUrlTtlMs),
      ...archiveLayoutFor({ kind: set.kind, policiesPath: set.policies_path }),
      // The URL is the creator's right to upload, good only while they still hold it.
      createdBy: principal!.userId,
      requiredPermission: MANAGE_POLICIES,
    });

    // Storage's session exists now; if the set changed meanwhile it simply expires unused.
    return db.transaction(async (tx) => {
      const r = new VersionRepository(tx);
      const locked = await r.getSet(set.id, { forUpdate: true });
      if (!locked) throw notFound();
      if (!canTakeUploadedVersions({ hasVcsRepo: locked.has_vcs_repo, hasPolicies: locked.has_policies }))
        throw notSupported();
      const row = await r.insert({
        id,
        policySetId: set.id,
        organization: set.organization,
        organizationId: set.organization_id,
        source: API_VERSION_SOURCE,
        uploadSessionId: session.sessionId,
        uploadExpiresAt: session.expiresAt,
        createdAt: createdAt.toISOString(),
        createdBy: principal?.userId || null,
        autoPromote,
      });
      await r.recordNewest(set.id, id);
      // The upload URL is a capability: it never goes into the trail.
      await recordAudit(tx, {
        organization: { name: set.organization, id: set.organization_id },
        actor: auditActorOf(principal),
        resource: { type: 'policy_set_version', id, action: 'create' },
        meta: { policy_set_id: set.id, auto_promote: autoPromote },
      });
      return row;
    });
  }

  async get(principal: Principal | undefined, id: string): Promise<VersionRow> {
    const version = await this.versions.get(id);
    if (!version || !isVisible(principal, version)) throw notFound();
    return version;
  }

  /**
   * Makes a ready version its set's current version: a staged one (its rollout) or an older,
   * superseded one (a rollback). Evaluations started afterwards use it; checks and evaluations
   * already created keep the set as they snapshotted it. Recorded in the audit trail with the
   * actor and the version it replaced. Promoting the current version changes and records nothing.
   */
  async promote(principal: Principal | undefined, id: string): Promise<VersionRow> {
    const seen = await this.versions.get(id);
    if (!seen || !isVisible(principal, seen)) throw notFound();
    return this.deps.db.transaction(async (tx) => {
      const r = new VersionRepository(tx);
      // The set's row first (as settling an upload does), so concurrent promotions take turns.
      const set = await r.getSet(seen.policy_set_id, { forUpdate: true });
      const version = set ? await r.get(id) : undefined;
      if (!set || !version) throw notFound();
      if (version.status !== 'ready') {
        throw conflict(
          'POLICY_SETS_VERSION_NOT_READY',
          `the version is ${version.status}; only a ready version can be promoted`,
        );
      }
      if (version.role === 'current') return version;
      const previous = await r.currentVersionId(set.id);
      await r.promote(version.id, set.id);
      await recordAudit(tx, {
        organization: { name: set.organization, id: set.organization_id },
        actor: auditActorOf(principal),
        resource: { type: 'policy_set_version', id: version.id, action: 'promote' },
        meta: {
          policy_set_id: set.id,
          previous_version_id: previous,
          rollback: version.role === 'superseded',
        },
      });
      return (await r.get(version.id))!;
    });
  }

  /** A page of the set's versions, newest first; `statuses` (words) keeps those in any of them. */
  async list(
    principal: Principal | undefined,
    policySetId: string,
    page: PageRequest,
    statuses: readonly string[] = [],
  ) {
    const set = await this.visibleSet(principal, policySetId);
    const wanted = readStatuses(statuses);
    const w = pageWindow(page);
    const { rows, total } = await this.versions.list(set.id, w.size, w.offset, wanted);
    return { versions: rows, page: pageInfo(w, total) };
  }

  /**
   * The versions among `ids` (at most 1000) the caller may manage; internal callers (no
   * principal) get every one.
   */
  async batchGet(principal: Principal | undefined, ids: readonly string[]): Promise<VersionRow[]> {
    const rows = await this.versions.getMany([...new Set(ids)].slice(0, 1000));
    return rows.filter((r) => !principal || isVisible(principal, r));
  }
}
