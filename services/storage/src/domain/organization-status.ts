import { conflict, notFound } from '@policyhub/errors';

/** Whether an organization may receive uploads: it exists and is not disabled. */
export type OrganizationStatus = 'active' | 'disabled' | 'missing';

/** Port: asks the organization's owner (admin-orgs) for its status at this moment. */
export interface OrganizationStatusLookup {
  /**
   * `organizationId`: the id the session was opened with; an organization that holds the name now
   * under another id is a new one, and the session's organization counts as gone (ADR 0019).
   */
  statusOf(organization: string, organizationId?: string): Promise<OrganizationStatus>;
}

/**
 * Refuses an upload for an organization that is disabled (409: the URL works again once it is
 * enabled) or gone (404, like a revoked URL). Called before the body is read and again before
 * anything is stored.
 */
export async function requireUploadableOrganization(
  lookup: OrganizationStatusLookup,
  organization: string,
  organizationId?: string,
): Promise<void> {
  const status = await lookup.statusOf(organization, organizationId);
  if (status === 'missing') throw notFound('STORAGE_UPLOAD_NOT_FOUND');
  if (status === 'disabled') {
    throw conflict(
      'STORAGE_UPLOAD_ORGANIZATION_DISABLED',
      'The organization of this upload is disabled; nothing was stored. The URL works again (until it expires) once a site admin enables the organization.',
    );
  }
}
