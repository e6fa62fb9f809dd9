import { randomBytes } from 'node:crypto';
import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, unauthenticated, unprocessable } from '@policyhub/errors';
import { type Permission, type Principal, hasPermission, principalOf } from '@policyhub/permissions';
import { auditActorOf } from '@policyhub/events';
import { IdentityRepository, type TokenRow, type UserRow } from '../db/identity-repository.js';
import type { Deps } from '../deps.js';
import { requireEmail, requireName, requirePrincipal, requireSiteAdmin } from '../domain/rules.js';
import { recordAudit } from './audit-trail.js';
import type { PageRequest } from './page.js';

/** A new secret token: 32 random bytes, url-safe; only its SHA-256 is stored. */
const generateToken = (): string => `ph.${randomBytes(32).toString('base64url')}`;

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

/** Who a bearer token stands for: the user and their memberships in enabled organizations. */
export interface Authenticated {
  user: UserRow;
  /** When the token expires (ISO 8601), or null. */
  tokenExpiredAt: string | null;
  memberships: Awaited<ReturnType<IdentityRepository['memberships']>>;
}

/** Users, their authentication tokens, and authenticating a bearer token. */
export class IdentityUseCases {
  private readonly identity: IdentityRepository;

  constructor(private readonly deps: Deps) {
    this.identity = new IdentityRepository(deps.db);
  }

  /** The user a bearer token belongs to; UNAUTHENTICATED when no token matches. */
  async authenticate(token: string): Promise<Authenticated> {
    const found = token ? await this.identity.findUserByToken(token) : undefined;
    if (!found) throw unauthenticated();
    const { token_expired_at: tokenExpiredAt, ...user } = found;
    return { user, tokenExpiredAt, memberships: await this.identity.memberships(user.id) };
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
      const inserted = await new IdentityRepository(tx).insertToken(
        newId('at'),
        user.id,
        token,
        description,
        expiry,
      );
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
    if (!token || !canManageTokensOf(caller, token.user_id)) throw notFound();
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
   * asks this when an upload arrives, so a capability URL stops working once its creator lost the
   * right or was deleted. A user principal gets NOT_FOUND, as for anything it may not see.
   */
  async checkPermission(
    principal: Principal | undefined,
    query: { subjectId: string; organization: string; organizationId?: string; permission: Permission },
  ): Promise<boolean> {
    if (principal) throw notFound();
    const user = query.subjectId ? await this.identity.getUser(query.subjectId) : undefined;
    if (!user) return false;
    const memberships = user.is_site_admin ? [] : await this.identity.memberships(user.id);
    const subject = principalOf(
      { userId: user.id, username: user.username, isSiteAdmin: user.is_site_admin },
      memberships.map((m) => [m.organization, m.permissions] as const),
      memberships.map((m) => [m.organization, m.organization_id] as const),
    );
    return hasPermission(subject, query.organization, query.permission, query.organizationId);
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
