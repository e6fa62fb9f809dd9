import { PERMISSIONS, type Permission } from '@policyhub/grpc-runtime';
import { createMember, createOrganization, createUser, type TestUser } from './fixtures.js';
import { SecurityFixtures } from './security-fixtures.js';
import type { TestSystem } from './system.js';

/** What guards an endpoint inside an organization: a team permission, any membership, or ownership. */
export type OrgRequirement = Permission | 'member' | 'owner';

/**
 * An organization with its owner and members created on demand: one user per distinct permission
 * set, each on a team granting exactly that set.
 */
export class OrgContext {
  private readonly members = new Map<string, Promise<TestUser>>();
  readonly fixtures: SecurityFixtures;

  constructor(
    readonly t: TestSystem,
    readonly name: string,
    readonly owner: TestUser,
  ) {
    this.fixtures = new SecurityFixtures(t, this);
  }

  static async create(t: TestSystem, prefix: string): Promise<OrgContext> {
    const org = await createOrganization(t, prefix);
    return new OrgContext(t, org.name, org.owner);
  }

  memberWith(permissions: readonly Permission[]): Promise<TestUser> {
    const key = [...permissions].sort().join(',');
    let member = this.members.get(key);
    if (!member) {
      member = createMember(this.t, { name: this.name, owner: this.owner }, [...permissions]);
      this.members.set(key, member);
    }
    return member;
  }

  /** The least privileged caller that satisfies `requirement`. */
  permitted(requirement: OrgRequirement): Promise<TestUser> {
    if (requirement === 'owner') return Promise.resolve(this.owner);
    return this.memberWith(requirement === 'member' ? [] : [requirement]);
  }

  /**
   * The most privileged member that still lacks `requirement` (every other permission; all of
   * them for `owner`), or undefined when any member satisfies it.
   */
  async forbidden(requirement: OrgRequirement): Promise<TestUser | undefined> {
    if (requirement === 'member') return undefined;
    return this.memberWith(PERMISSIONS.filter((p) => p !== requirement));
  }
}

/**
 * The cast of the authorization suites: organization A (where resources live), the owner of
 * another organization B (an outsider to A), and the site admin.
 */
export class SecurityWorld {
  private constructor(
    readonly t: TestSystem,
    readonly orgA: OrgContext,
    readonly orgB: OrgContext,
  ) {}

  static async create(t: TestSystem): Promise<SecurityWorld> {
    const [orgA, orgB] = await Promise.all([OrgContext.create(t, 'sec-a'), OrgContext.create(t, 'sec-b')]);
    return new SecurityWorld(t, orgA, orgB);
  }

  /** The owner of organization B: a real, privileged user with no business in A. */
  get outsider(): TestUser {
    return this.orgB.owner;
  }

  /** A throwaway organization for calls that delete or disable the organization itself. */
  freshOrg(): Promise<OrgContext> {
    return OrgContext.create(this.t, 'sec-tmp');
  }

  freshUser(): Promise<TestUser> {
    return createUser(this.t, 'sec-user');
  }
}
