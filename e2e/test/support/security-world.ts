import { PERMISSIONS, type Permission } from '@policyhub/grpc-runtime';
import { createMember, createOrganization, createUser, type TestUser, uniqueName } from './fixtures.js';
import { SecurityFixtures } from './security-fixtures.js';
import type { TestSystem } from './system.js';

/** What guards an endpoint inside an organization: a team permission, any membership, or ownership. */
export type OrgRequirement = Permission | 'member' | 'owner';

/** Names for new resources of one kind (`ws`, `team`, `org`, …): unique within their scope. */
export type NameSource = (kind: string) => string;

/**
 * Property names of `Object.prototype` (plus `__proto__`): as names of organizations, teams,
 * workspaces, projects, policies and sets they reach every lookup keyed by user data.
 */
export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
] as const;

/**
 * Hands out PROTOTYPE_NAMES in order, separately per kind (each scope gets the whole list), then
 * unique names once a kind has used them all.
 */
export function prototypeNames(first: readonly string[] = PROTOTYPE_NAMES): NameSource {
  const next = new Map<string, number>();
  return (kind) => {
    const i = next.get(kind) ?? 0;
    next.set(kind, i + 1);
    return first[i] ?? uniqueName(kind);
  };
}

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
    /** Names of what is created inside this organization (teams, workspaces, policies, …). */
    readonly names: NameSource = uniqueName,
  ) {
    this.fixtures = new SecurityFixtures(t, this);
  }

  /** An organization named `name` (default: a unique name starting with `prefix`). */
  static async create(
    t: TestSystem,
    prefix: string,
    options: { name?: string; names?: NameSource } = {},
  ): Promise<OrgContext> {
    const org = await createOrganization(t, prefix, options.name);
    return new OrgContext(t, org.name, org.owner, options.names);
  }

  memberWith(permissions: readonly Permission[]): Promise<TestUser> {
    const key = [...permissions].sort().join(',');
    let member = this.members.get(key);
    if (!member) {
      member = createMember(
        this.t,
        { name: this.name, owner: this.owner },
        [...permissions],
        this.names('team'),
      );
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
    private readonly orgNames: (() => string) | undefined,
    private readonly names: () => NameSource,
  ) {}

  static async create(t: TestSystem): Promise<SecurityWorld> {
    const [orgA, orgB] = await Promise.all([OrgContext.create(t, 'sec-a'), OrgContext.create(t, 'sec-b')]);
    return new SecurityWorld(t, orgA, orgB, undefined, () => uniqueName);
  }

  /**
   * The same cast with user data named after `Object.prototype` properties: A is `constructor`,
   * B is `__proto__`, later organizations take the following PROTOTYPE_NAMES (`toString`, …), and
   * inside every organization the first teams, workspaces, projects, policies and sets are named
   * `constructor`, `__proto__`, `toString`, `hasOwnProperty`, … Organization names are global, so
   * one system holds one such world.
   */
  static async createWithPrototypeNames(t: TestSystem): Promise<SecurityWorld> {
    const orgNames = prototypeNames();
    const [a, b] = [orgNames('org'), orgNames('org')];
    const [orgA, orgB] = await Promise.all([
      OrgContext.create(t, 'sec-a', { name: a, names: prototypeNames() }),
      OrgContext.create(t, 'sec-b', { name: b, names: prototypeNames() }),
    ]);
    return new SecurityWorld(
      t,
      orgA,
      orgB,
      () => orgNames('org'),
      () => prototypeNames(),
    );
  }

  /** Another organization named like this world's (a prototype name when there is one left). */
  async otherOrg(prefix: string): Promise<OrgContext> {
    return OrgContext.create(this.t, prefix, {
      ...(this.orgNames ? { name: this.orgNames() } : {}),
      names: this.names(),
    });
  }

  /** The owner of organization B: a real, privileged user with no business in A. */
  get outsider(): TestUser {
    return this.orgB.owner;
  }

  /** A throwaway organization for calls that delete or disable the organization itself. */
  freshOrg(): Promise<OrgContext> {
    return this.otherOrg('sec-tmp');
  }

  freshUser(): Promise<TestUser> {
    return createUser(this.t, 'sec-user');
  }
}
