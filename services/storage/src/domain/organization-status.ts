import { conflict, notFound } from '@policyhub/errors';

/** Whether an organization may receive uploads: it exists and is not disabled. */
export type OrganizationStatus = 'active' | 'disabled' | 'missing';

/** Port: asks the organization's owner (admin-orgs) for its status at this moment. */
export interface OrganizationStatusLookup {
  statusOf(organization: string): Promise<OrganizationStatus>;
}

/**
 * Refuses an upload for an organization that is disabled (409: the URL works again once it is
 * enabled) or gone (404, like a revoked URL). Called before the body is read and again before
 * anything is stored.
 */
export async function requireUploadableOrganization(
  lookup: OrganizationStatusLookup,
  organization: string,
): Promise<void> {
  const status = await lookup.statusOf(organization);
  if (status === 'missing') throw notFound('STORAGE_UPLOAD_NOT_FOUND');
  if (status === 'disabled') {
    throw conflict(
      'STORAGE_UPLOAD_ORGANIZATION_DISABLED',
      'The organization of this upload is disabled; nothing was stored. The URL works again (until it expires) once a site admin enables the organization.',
    );
  }
}
