import { type adminorgsV1, timestampToIso } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink } from '../../jsonapi/document.js';
import type { AUTHENTICATION_TOKEN } from './schema.js';

export type AuthenticationTokenObject = Static<typeof AUTHENTICATION_TOKEN.schema>;

/**
 * Upstream's token shape, for user, team and organization tokens alike (`created-by`: a user
 * token's user, else whoever made the token). `token` holds the secret only in the creation response (`secret`);
 * lists and shows carry null. `expired-at` is null for a token that never expires.
 */
export function serializeToken(
  t: adminorgsV1.AuthenticationToken__Output,
  secret?: string,
): AuthenticationTokenObject {
  // Team and organization tokens are reached through their owner, one each.
  const self =
    t.teamId !== undefined
      ? `/teams/${encodeURIComponent(t.teamId)}/authentication-token`
      : t.organization !== undefined
        ? `/organizations/${encodeURIComponent(t.organization)}/authentication-token`
        : `/authentication-tokens/${t.id}`;
  return {
    id: t.id,
    type: 'authentication-tokens',
    attributes: {
      description: t.description ?? null,
      token: secret ?? null,
      'created-at': isoTime(t.createdAt),
      'last-used-at': timestampToIso(t.lastUsedAt),
      'expired-at': timestampToIso(t.expiredAt),
    },
    relationships: { 'created-by': { data: { id: t.userId || t.createdBy, type: 'users' } } },
    links: selfLink(self),
  };
}
