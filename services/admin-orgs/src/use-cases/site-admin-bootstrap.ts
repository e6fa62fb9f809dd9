import { newId } from '@policyhub/errors';
import { IdentityRepository } from '../db/identity-repository.js';
import type { Deps } from '../deps.js';

/**
 * At every start: the bootstrap site admin `admin` exists and `token` (SITE_ADMIN_TOKEN) is its
 * only bootstrap token; a previous one is revoked, and without a token all of them are.
 */
export async function ensureBootstrapSiteAdmin({ db }: Deps, token: string | undefined): Promise<void> {
  await db.transaction((tx) => new IdentityRepository(tx).ensureSiteAdmin(newId('user'), newId('at'), token));
}
