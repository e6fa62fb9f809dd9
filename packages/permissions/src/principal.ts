/** Permissions a team can grant in an organization (docs/security.md). */
export const PERMISSIONS = [
  'manage-policies',
  'manage-policy-overrides',
  'manage-workspaces',
  'manage-projects',
  'read-workspaces',
  'read-runs',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * What a principal's membership carries besides its permissions when the user is in the
 * organization's `owners` team (owners manage the organization and its teams).
 */
export const OWNER = 'owners';

/**
 * Whom a principal stands for: a user (user tokens), a team (its team token; `userId` is the team's
 * id) or an organization (its organization token; `userId` is the organization's immutable id).
 */
export type PrincipalKind = 'user' | 'team' | 'organization';

/**
 * What an organization token may do in its organization (upstream: "all CRUD operations on most
 * resources", but never start runs, create configuration versions or override policy checks).
 * It is not an owner: it cannot change the organization or manage teams here.
 */
export const ORGANIZATION_TOKEN_PERMISSIONS: readonly Permission[] = [
  'manage-policies',
  'manage-workspaces',
  'manage-projects',
  'read-workspaces',
  'read-runs',
];

export interface Principal {
  /** Absent: a user. */
  kind?: PrincipalKind;
  userId: string;
  username: string;
  isSiteAdmin: boolean;
  /**
   * organization name -> permissions; disabled organizations are absent for non-admins. A Map,
   * never a plain object: organization names are user data (`constructor`, `__proto__`, …).
   */
  memberships: ReadonlyMap<string, readonly string[]>;
  /**
   * organization name -> the organization's immutable id, for every membership. Data in other
   * services records the id of the organization it was created in; a permission on a name only
   * counts for rows of the organization that holds that name now (ADR 0019).
   */
  organizationIds?: ReadonlyMap<string, string>;
}

/** The JSON form of a principal (signed assertions, the Redis principal cache). */
export interface PrincipalJson {
  kind?: PrincipalKind;
  userId: string;
  username: string;
  isSiteAdmin: boolean;
  memberships: Array<[string, string[]]>;
  organizationIds?: Array<[string, string]>;
}

export function principalToJson(principal: Principal): PrincipalJson {
  return {
    ...(principal.kind && principal.kind !== 'user' ? { kind: principal.kind } : {}),
    userId: principal.userId,
    username: principal.username,
    isSiteAdmin: principal.isSiteAdmin,
    memberships: [...principal.memberships].map(([org, perms]) => [org, [...perms]]),
    organizationIds: [...(principal.organizationIds ?? [])],
  };
}

/** Reads a principal from its JSON form; undefined when the shape is wrong. */
export function principalFromJson(value: unknown): Principal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<Record<keyof PrincipalJson, unknown>>;
  if (typeof v.userId !== 'string' || typeof v.username !== 'string' || typeof v.isSiteAdmin !== 'boolean')
    return undefined;
  if (!Array.isArray(v.memberships)) return undefined;
  if (v.kind !== undefined && v.kind !== 'user' && v.kind !== 'team' && v.kind !== 'organization')
    return undefined;
  const memberships = new Map<string, readonly string[]>();
  for (const entry of v.memberships) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) return undefined;
    if (!entry[1].every((p: unknown) => typeof p === 'string')) return undefined;
    memberships.set(entry[0], entry[1] as string[]);
  }
  const organizationIds = new Map<string, string>();
  if (v.organizationIds !== undefined) {
    if (!Array.isArray(v.organizationIds)) return undefined;
    for (const entry of v.organizationIds) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string')
        return undefined;
      organizationIds.set(entry[0], entry[1]);
    }
  }
  return {
    ...(v.kind === 'team' || v.kind === 'organization' ? { kind: v.kind } : {}),
    userId: v.userId,
    username: v.username,
    isSiteAdmin: v.isSiteAdmin,
    memberships,
    organizationIds,
  };
}

/**
 * Builds a principal from `organization -> permissions` pairs and `organization -> id` pairs
 * (tests, the identity service, the gateway).
 */
export function principalOf(
  fields: Omit<Principal, 'memberships' | 'organizationIds'>,
  memberships: Iterable<readonly [string, readonly string[]]> = [],
  organizationIds: Iterable<readonly [string, string]> = [],
): Principal {
  return { ...fields, memberships: new Map(memberships), organizationIds: new Map(organizationIds) };
}

/**
 * Whether the principal may act with `permission` in `organization`. Site admins may do anything.
 * `organizationId` is the id recorded on the data being acted on: the permission counts only when
 * the principal's organization of that name is that very organization (a re-created organization
 * of the same name is another one). Data recorded before ids existed passes no id.
 */
export function hasPermission(
  principal: Principal | undefined,
  organization: string,
  permission: Permission,
  organizationId?: string | null,
): boolean {
  if (!principal) return false;
  if (principal.isSiteAdmin) return true;
  if (!(principal.memberships.get(organization)?.includes(permission) ?? false)) return false;
  return !organizationId || principal.organizationIds?.get(organization) === organizationId;
}

/**
 * Whether the principal may start work in `organization`: create runs and configuration versions
 * (with `manage-workspaces`). An organization token never may (upstream's rule).
 */
export function canStartRuns(
  principal: Principal | undefined,
  organization: string,
  organizationId?: string | null,
): boolean {
  return (
    principal?.kind !== 'organization' &&
    hasPermission(principal, organization, 'manage-workspaces', organizationId)
  );
}

/** Whether the principal can see the organization at all (member of a team there, or site admin). */
export function canAccessOrganization(principal: Principal | undefined, organization: string): boolean {
  if (!principal) return false;
  return principal.isSiteAdmin || principal.memberships.has(organization);
}
