import type { Principal } from '@policyhub/permissions';
import type { ArchiveLayout, VersionDeclaration } from './versions.js';

/** An organization as a caller sees it in admin-orgs, with its free-tier entitlement. */
export interface OrganizationFacts {
  name: string;
  /** The organization's immutable id (admin-orgs' external id). */
  id: string;
  isFreeTier: boolean;
}

/** The organization holding a name now, asked without a caller; `unknown` when admin-orgs cannot be reached. */
export type OrganizationState = { id: string; isDisabled: boolean } | 'missing' | 'unknown';

/** What policy-sets asks admin-orgs, the owner of organizations, workspaces and projects. */
export interface TenancyDirectory {
  /** The organization as the caller sees it; NOT_FOUND when it is missing or hidden from the caller. */
  organization(principal: Principal | undefined, name: string): Promise<OrganizationFacts>;
  /** The organization holding `name` now, disabled ones included. */
  organizationState(name: string): Promise<OrganizationState>;
  /** Ids among `ids` that are workspaces of `organization` (one call whatever the number of ids). */
  workspacesIn(organization: string, ids: readonly string[]): Promise<Set<string>>;
  /** Ids among `ids` that are projects of `organization` (one call whatever the number of ids). */
  projectsIn(organization: string, ids: readonly string[]): Promise<Set<string>>;
}

/** A single-use upload session opened in storage for a version's archive. */
export interface UploadSession {
  /** Storage's id of the session: the version keeps it and mints its upload URL from it (ADR 0059). */
  sessionId: string;
  /** ISO time after which the session no longer takes the upload. */
  expiresAt: string;
}

/** Storage's upload sessions; a version's archive is uploaded straight to storage with its URL's token. */
export interface UploadSessions {
  create(request: {
    organization: string;
    organizationId: string | null;
    /** The version the upload belongs to (storage echoes it in storage.upload-completed). */
    versionId: string;
    policySetId: string;
    expiresAt: Date;
    layout: 'opa' | 'sentinel';
    layoutRoot: string;
    /** The creator, who must still hold `requiredPermission` when the upload arrives. */
    createdBy: string;
    requiredPermission: string;
  }): Promise<UploadSession>;
}

/** What storage answers when asked to read a stored version archive again. */
export type StoredDeclaration = { ok: true; declaration: VersionDeclaration } | { ok: false; reason: string };

/** Storage's second reading of a stored version archive, with the parser and limits of the upload. */
export interface ArchiveDeclarations {
  /** Throws when storage cannot answer now (unavailable); `ok: false` when the archive cannot say. */
  read(request: { objectKey: string; layout: ArchiveLayout; layoutRoot: string }): Promise<StoredDeclaration>;
}
