import { type adminorgsV1, organizationPermission, principalKind } from '@policyhub/contracts';
import { OWNER, type Principal, principalOf } from '@policyhub/permissions';

/**
 * The principal admin-orgs' `Identity.Authenticate` answers, in the form every service checks and
 * the gateway signs (internal-auth.ts): each membership's permissions as their words, plus OWNER
 * for an owner. Converted once per authentication, so signed assertions stay plain JSON.
 */
export function principalFromProto(p: adminorgsV1.Principal__Output): Principal {
  const kind =
    p.kind === 'PRINCIPAL_KIND_TEAM' || p.kind === 'PRINCIPAL_KIND_ORGANIZATION'
      ? { kind: principalKind.toWord(p.kind) }
      : {};
  return principalOf(
    { ...kind, userId: p.userId, username: p.username, isSiteAdmin: p.isSiteAdmin },
    p.memberships.map((m) => [m.organization, membershipWords(m)] as const),
    p.memberships.map((m) => [m.organization, m.organizationId] as const),
  );
}

function membershipWords(m: adminorgsV1.Membership__Output): string[] {
  const words: string[] = m.permissions.map((v) => organizationPermission.toWord(v));
  if (m.isOwner) words.push(OWNER);
  return words;
}
