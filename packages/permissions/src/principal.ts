/** Permissions a team can grant in an organization (DESIGN §5). */
export const PERMISSIONS = [
  'manage-policies',
  'manage-policy-overrides',
  'manage-workspaces',
  'manage-projects',
  'read-workspaces',
  'read-runs',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface Principal {
  userId: string;
  username: string;
  isSiteAdmin: boolean;
  /**
   * organization name -> permissions; disabled organizations are absent for non-admins. A Map,
   * never a plain object: organization names are user data (`constructor`, `__proto__`, …).
   */
  memberships: ReadonlyMap<string, readonly string[]>;
}

/** The JSON form of a principal (signed assertions, the Redis principal cache). */
export interface PrincipalJson {
  userId: string;
  username: string;
  isSiteAdmin: boolean;
  memberships: Array<[string, string[]]>;
}

export function principalToJson(principal: Principal): PrincipalJson {
  return {
    userId: principal.userId,
    username: principal.username,
    isSiteAdmin: principal.isSiteAdmin,
    memberships: [...principal.memberships].map(([org, perms]) => [org, [...perms]]),
  };
}

/** Reads a principal from its JSON form; undefined when the shape is wrong. */
export function principalFromJson(value: unknown): Principal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<Record<keyof PrincipalJson, unknown>>;
  if (typeof v.userId !== 'string' || typeof v.username !== 'string' || typeof v.isSiteAdmin !== 'boolean')
    return undefined;
  if (!Array.isArray(v.memberships)) return undefined;
  const memberships = new Map<string, readonly string[]>();
  for (const entry of v.memberships) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) return undefined;
    if (!entry[1].every((p: unknown) => typeof p === 'string')) return undefined;
    memberships.set(entry[0], entry[1] as string[]);
  }
  return { userId: v.userId, username: v.username, isSiteAdmin: v.isSiteAdmin, memberships };
}

/** Builds a principal from `organization -> permissions` pairs (tests, the identity service). */
export function principalOf(
  fields: Omit<Principal, 'memberships'>,
  memberships: Iterable<readonly [string, readonly string[]]> = [],
): Principal {
  return { ...fields, memberships: new Map(memberships) };
}

/** Whether the principal may act with `permission` in `organization`. Site admins may do anything. */
export function hasPermission(
  principal: Principal | undefined,
  organization: string,
  permission: Permission,
): boolean {
  if (!principal) return false;
  if (principal.isSiteAdmin) return true;
  return principal.memberships.get(organization)?.includes(permission) ?? false;
}

/** Whether the principal can see the organization at all (member of a team there, or site admin). */
export function canAccessOrganization(principal: Principal | undefined, organization: string): boolean {
  if (!principal) return false;
  return principal.isSiteAdmin || principal.memberships.has(organization);
}
