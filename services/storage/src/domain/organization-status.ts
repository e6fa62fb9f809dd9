import { conflict, notFound } from '@policyhub/errors';

/**
 * Whether an upload may be taken now: its organization exists and is not disabled, and the
 * session's creator still holds the permission the owner asked for ('forbidden' otherwise).
 */
export type OrganizationStatus = 'active' | 'disabled' | 'missing' | 'forbidden';

/** What an upload session asks of admin-orgs when its upload arrives. */
export interface UploadRightQuery {
  organization: string;
  /**
   * The id the session was opened with; an organization that holds the name now under another id
   * is a new one, and the session's organization counts as gone (ADR 0019).
   */
  organizationId?: string;
  /** The session's creator and the permission they must still hold; '' for either checks nothing. */
  createdBy?: string;
  requiredPermission?: string;
}

/** Port: asks the organization's owner (admin-orgs) at this moment. */
export interface OrganizationStatusLookup {
  statusOf(query: UploadRightQuery): Promise<OrganizationStatus>;
}

/**
 * Refuses an upload for an organization that is disabled (409: the URL works again once it is
 * enabled) or gone (404, like a revoked URL), and for a session whose creator no longer holds the
 * permission it was opened under or was deleted (404: the URL no longer grants anything; it works
 * again only if that right comes back before it expires). Called before the body is read and
 * again before anything is stored.
 */
export async function requireUploadableOrganization(
  lookup: OrganizationStatusLookup,
  query: UploadRightQuery,
): Promise<void> {
  const status = await lookup.statusOf(query);
  if (status === 'missing' || status === 'forbidden') throw notFound('STORAGE_UPLOAD_NOT_FOUND');
  if (status === 'disabled') {
    throw conflict(
      'STORAGE_UPLOAD_ORGANIZATION_DISABLED',
      'The organization of this upload is disabled; nothing was stored. The URL works again (until it expires) once a site admin enables the organization.',
    );
  }
}
