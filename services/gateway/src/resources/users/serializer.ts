import { type adminorgsV1, timestampToIso } from '@policyhub/contracts';
import { type ResourceObject, selfLink } from '../../jsonapi/document.js';

export function serializeUser(u: adminorgsV1.User__Output): ResourceObject {
  return {
    id: u.id,
    type: 'users',
    attributes: {
      username: u.username,
      email: u.email,
      'is-site-admin': u.isSiteAdmin,
      'created-at': timestampToIso(u.createdAt),
    },
    links: selfLink(`/users/${u.id}`),
  };
}

/**
 * Upstream's user token shape. `token` holds the secret only in the creation response (`secret`);
 * lists and shows carry null. Tokens do not expire here, so `expired-at` is always null.
 */
export function serializeToken(t: adminorgsV1.AuthenticationToken__Output, secret?: string): ResourceObject {
  return {
    id: t.id,
    type: 'authentication-tokens',
    attributes: {
      description: t.description ?? null,
      token: secret ?? null,
      'created-at': timestampToIso(t.createdAt),
      'last-used-at': timestampToIso(t.lastUsedAt),
      'expired-at': null,
    },
    relationships: { 'created-by': { data: { id: t.userId, type: 'users' } } },
    links: selfLink(`/authentication-tokens/${t.id}`),
  };
}
