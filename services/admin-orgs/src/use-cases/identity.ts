import { randomBytes } from 'node:crypto';
import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, unauthenticated, unprocessable } from '@policyhub/errors';
import {
  ORGANIZATION_TOKEN_PERMISSIONS,
  OWNER,
  type Permission,
  type Principal,
  type PrincipalKind,
  hasPermission,
  principalOf,
} from '@policyhub/permissions';
import { auditActorOf } from '@policyhub/events';
import { IdentityRepository, type TokenRow, type UserRow } from '../db/identity-repository.js';
import type { Deps } from '../deps.js';
import { requireEmail, requireName, requirePrincipal, requireSiteAdmin } from '../domain/rules.js';
import { recordAudit } from './audit-trail.js';
import type { PageRequest } from './page.js';

/** A new secret token: 32 random bytes, url-safe; only its SHA-256 is stored. */
export const generateToken = (): string => `ph.${randomBytes(32).toString('base64url')}`;

/**
 * A token's `expired-at` as given at creation: an ISO 8601 time with a zone (as upstream's
 * clients send it), in the future; undefined or null means the token never expires.
 */
export function tokenExpiry(expiredAt: string | null | undefined, now = new Date()): string | null {
  if (expiredAt === undefined || expiredAt === null) return null;
  const at = ISO_8601_WITH_ZONE.test(expiredAt) ? Date.parse(expiredAt) : Number.NaN;
  if (Number.isNaN(at)) {
    throw invalidAttribute(
      'ADMIN_ORGS_INVALID_TOKEN_EXPIRY',
      'expired-at',
      'Expired at must be an ISO 8601 date and time with a time zone, e.g. 2027-01-31T00:00:00Z',
    );
  }
  if (at <= now.getTime()) {
    throw invalidAttribute(
      'ADMIN_ORGS_INVALID_TOKEN_EXPIRY',
      'expired-at',
      'Expired at must be in the future',
    );
  }
  return new Date(at).toISOString();
}

const ISO_8601_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Tokens are managed by their user and by site admins; to everyone else they do not exist. */
const canManageTokensOf = (caller: Principal, userId: string): boolean =>
  caller.isSiteAdmin || caller.userId === userId;

type Membership = Awaited<ReturnType<IdentityRepository['memberships']>>[number];

/**
 * Whom a bearer token (or a recorded actor) stands for, and their memberships in enabled
 * organizations: a user with their teams' permissions; a team (its token) with the team's
 * permissions, as an owner when it is the owners team; an organization (its token) with
 * ORGANIZATION_TOKEN_PERMISSIONS there.
 */
export interface Subject {
  kind: PrincipalKind;
  /** The user's id, the team's id, or the organization's immutable id. */
  id: string;
  username: string;
  isSiteAdmin: boolean;
  memberships: Membership[];
}

/** Who a bearer token stands for, and until when. */
export interface Authenticated extends Subject {
  /** When the token expires (ISO 8601), or null. */
  tokenExpiredAt: string | null;
}

/** The subject as a principal of the permission model (to check what it may do). */
export const principalOfSubject = (s: Subject): Principal =>
  principalOf(
    { kind: s.kind, userId: s.id, username: s.username, isSiteAdmin: s.isSiteAdmin },
    s.memberships.map(
      (m) => [m.organization, m.is_owner ? [...m.permissions, OWNER] : m.permissions] as const,
    ),
    s.memberships.map((m) => [m.organization, m.organization_id] as const),
  );

/** Users, their authentication tokens, and authenticating a bearer token. */
export class IdentityUseCases {
  private readonly identity: IdentityRepository;

  constructor(private readonly deps: Deps) {
    this.identity = new IdentityRepository(deps.db);
  }

  /** The user a bearer token belongs to; UNAUTHENTICATED when no token matches. */
  async authenticate(token: string): Promise<Authenticated> {
    const found = token ? await this.identity.findTokenSubject(token) : undefined;
    if (!found) throw unauthenticated();
    let subject: Subject;
    if (found.user) subject = await this.userSubject(found.user);
    else if (found.team_id) subject = await this.teamSubject(found.team_id);
    else if (found.organization_id) subject = await this.organizationSubject(found.organization_id);
    else throw unauthenticated();
    return { ...subject, tokenExpiredAt: found.token_expired_at };
  }

  private async userSubject(user: UserRow): Promise<Subject> {
    return {
      kind: 'user',
      id: user.id,
      username: user.username,
      isSiteAdmin: user.is_site_admin,
      memberships: await this.identity.memberships(user.id),
    };
  }

  /** A team token's subject; without memberships while its organization is disabled. */
  private async teamSubject(teamId: string): Promise<Subject> {
    const team = await this.identity.teamSubject(teamId);
    return {
      kind: 'team',
      id: teamId,
      username: `api-team_${teamId}`,
      isSiteAdmin: false,
      memberships: team
        ? [
            {
              organization: team.organization,
              organization_id: team.organization_id,
              permissions: team.permissions,
              is_owner: team.name === OWNER,
            },
          ]
        : [],
    };
  }

  /** An organization token's subject; without memberships while the organization is disabled. */
  private async organizationSubject(organizationId: string): Promise<Subject> {
    const org = await this.identity.organizationSubject(organizationId);
    return {
      kind: 'organization',
      id: organizationId,
      username: `api-org-${org?.name ?? organizationId}`,
      isSiteAdmin: false,
      memberships: org
        ? [
            {
              organization: org.name,
              organization_id: org.external_id,
              permissions: [...ORGANIZATION_TOKEN_PERMISSIONS],
              is_owner: false,
            },
          ]
        : [],
    };
  }

  async createUser(
    principal: Principal | undefined,
    user: { username: string; email: string; isSiteAdmin: boolean },
  ): Promise<UserRow> {
    requireSiteAdmin(principal);
    requireName(user.username, 'username', 'ADMIN_ORGS_INVALID_USERNAME');
    requireEmail(user.email, 'email', 'ADMIN_ORGS_INVALID_EMAIL');
    try {
      return await this.deps.db.transaction(async (tx) => {
        const row = await new IdentityRepository(tx).insertUser({
          id: newId('user'),
          username: user.username,
          email: user.email,
          is_site_admin: user.isSiteAdmin,
        });
        await recordAudit(tx, {
          organization: null,
          actor: auditActorOf(principal),
          resource: { type: 'user', id: row.id, action: 'create' },
          meta: { username: row.username, is_site_admin: row.is_site_admin },
        });
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw invalidAttribute('ADMIN_ORGS_USERNAME_TAKEN', 'username', 'Username has already been taken');
      }
      throw err;
    }
  }

  /** A new token for the user; its secret is returned this once. */
  async createToken(
    principal: Principal | undefined,
    userId: string,
    description: string,
    expiredAt?: string,
  ): Promise<{ row: TokenRow; token: string }> {
    const caller = requirePrincipal(principal);
    if (!canManageTokensOf(caller, userId)) throw notFound();
    const user = await this.identity.getUser(userId);
    if (!user) throw notFound();
    const expiry = tokenExpiry(expiredAt);
    const token = generateToken();
    const row = await this.deps.db.transaction(async (tx) => {
      const inserted = await new IdentityRepository(tx).insertToken({
        id: newId('at'),
        owner: { userId: user.id },
        secret: token,
        description,
        expiredAt: expiry,
        createdBy: caller.userId,
      });
      await recordAudit(tx, {
        organization: null,
        actor: auditActorOf(caller),
        resource: { type: 'authentication_token', id: inserted.id, action: 'create' },
        meta: { user_id: user.id, description, expired_at: expiry },
      });
      return inserted;
    });
    return { row, token };
  }

  async listTokens(principal: Principal | undefined, userId: string, page: PageRequest) {
    const caller = requirePrincipal(principal);
    if (!canManageTokensOf(caller, userId)) throw notFound();
    if (!(await this.identity.getUser(userId))) throw notFound();
    const w = pageWindow(page);
    const { rows, total } = await this.identity.listTokens(userId, w.size, w.offset);
    return { tokens: rows, page: pageInfo(w, total) };
  }

  /** The token `id` if the caller may manage it, else NOT_FOUND. */
  async getToken(principal: Principal | undefined, id: string): Promise<TokenRow> {
    const caller = requirePrincipal(principal);
    const token = await this.identity.getToken(id);
    if (!token?.user_id || !canManageTokensOf(caller, token.user_id)) throw notFound();
    return token;
  }

  async deleteToken(principal: Principal | undefined, id: string): Promise<void> {
    const token = await this.getToken(principal, id);
    await this.deps.db.transaction(async (tx) => {
      if (!(await new IdentityRepository(tx).deleteToken(token.id))) throw notFound();
      await recordAudit(tx, {
        organization: null,
        actor: auditActorOf(principal),
        resource: { type: 'authentication_token', id: token.id, action: 'destroy' },
        meta: { user_id: token.user_id },
      });
    });
  }

  /**
   * Whether `subjectId` (a principal's user id) holds `permission` in the enabled organization
   * `organization` (of id `organizationId` when given) right now. Internal callers only: storage
   * asks this when an upload arrives, runs when a plan log URL is read, so a capability URL stops
   * working once the one it was made for lost the right or was deleted. A user principal gets NOT_FOUND, as for anything it may not see.
   */
  async checkPermission(
    principal: Principal | undefined,
    query: { subjectId: string; organization: string; organizationId?: string; permission: Permission },
  ): Promise<boolean> {
    if (principal) throw notFound();
    const subject = await this.recordedSubject(query.subjectId);
    if (!subject) return false;
    return hasPermission(
      principalOfSubject(subject),
      query.organization,
      query.permission,
      query.organizationId,
    );
  }

  /**
   * The subject a principal's id names now (`team-…`: a team, `org-…`: an organization, else a
   * user). A team or organization acts only while it has a live token: deleting (or letting
   * expire) the token ends what it started, as deleting a user does.
   */
  private async recordedSubject(id: string): Promise<Subject | undefined> {
    if (!id) return undefined;
    if (id.startsWith('team-')) {
      return (await this.identity.hasLiveToken({ teamId: id })) ? this.teamSubject(id) : undefined;
    }
    if (id.startsWith('org-')) {
      return (await this.identity.hasLiveToken({ organizationId: id }))
        ? this.organizationSubject(id)
        : undefined;
    }
    const user = await this.identity.getUser(id);
    return user && this.userSubject(user);
  }

  /** The caller's own account. */
  async account(principal: Principal | undefined): Promise<UserRow> {
    const caller = requirePrincipal(principal);
    const user = await this.identity.getUser(caller.userId);
    if (!user) throw notFound();
    return user;
  }

  async batchGetUsers(ids: string[]): Promise<UserRow[]> {
    return this.identity.getUsers(ids);
  }

  async listUsers(
    principal: Principal | undefined,
    filter: { query: string; isSiteAdmin: boolean | null },
    page: PageRequest,
  ) {
    requireSiteAdmin(principal);
    const w = pageWindow(page);
    const { rows, total } = await this.identity.listUsers(filter, w.size, w.offset);
    return { users: rows, page: pageInfo(w, total) };
  }

  /** Deletes a user (not oneself, not the last owner of an organization) with their tokens and memberships. */
  async deleteUser(principal: Principal | undefined, id: string): Promise<void> {
    requireSiteAdmin(principal);
    if (!(await this.identity.getUser(id))) throw notFound();
    if (principal?.userId === id) {
      throw unprocessable('ADMIN_ORGS_DELETE_SELF', 'you cannot delete your own account');
    }
    await this.deps.db.transaction(async (tx) => {
      const r = new IdentityRepository(tx);
      const sole = await r.organizationsSolelyOwnedBy(id);
      if (sole.length > 0) {
        throw unprocessable(
          'ADMIN_ORGS_LAST_OWNER',
          `the user is the only owner of ${sole.join(', ')}; add another owner or delete the organization first`,
        );
      }
      // Tokens and memberships go with the user (foreign-key cascades) in the same statement.
      if (!(await r.deleteUser(id))) throw notFound();
      await recordAudit(tx, {
        organization: null,
        actor: auditActorOf(principal),
        resource: { type: 'user', id, action: 'destroy' },
      });
    });
  }
}
