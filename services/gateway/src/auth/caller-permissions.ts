import { hasPermission, OWNER, type Permission, type Principal } from '@policyhub/grpc-runtime';

/**
 * What the caller may do in one organization, from the teams it is in (the principal the gateway
 * authenticated): the source of the `permissions` objects clients read to decide what to offer.
 * The backends enforce the same rules; these answers only describe them.
 */
export interface CallerPermissions {
  can(permission: Permission): boolean;
  /** In the organization's owners team (owners manage teams and the organization itself), or a site admin. */
  readonly isOwner: boolean;
}

export function callerPermissions(principal: Principal | undefined, organization: string): CallerPermissions {
  return {
    can: (permission) => hasPermission(principal, organization, permission),
    isOwner: !!principal?.isSiteAdmin || !!principal?.memberships.get(organization)?.includes(OWNER),
  };
}
