import { randomBytes } from 'node:crypto';
import type { adminorgsV1 } from '@policyhub/contracts';
import { type Db, isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, unauthenticated, unprocessable } from '@policyhub/errors';
import type { Principal } from '@policyhub/grpc-runtime';
import { IdentityRepository } from '../db/identity-repository.js';
import { requireEmail, requireName, requirePrincipal, requireSiteAdmin } from '../domain/rules.js';
import { toAuthenticationToken, toPermissionValues, toUser } from './mappers.js';
import type { Handlers } from '@policyhub/grpc-runtime';

/** A new secret token: 32 random bytes, url-safe; only its SHA-256 is stored. */
export const generateToken = (): string => `ph.${randomBytes(32).toString('base64url')}`;

/** The principal a bearer token stands for; UNAUTHENTICATED when no token matches. */
export async function principalForToken(db: Db, token: string): Promise<adminorgsV1.Principal> {
  const repo = new IdentityRepository(db);
  const user = token ? await repo.findUserByToken(token) : undefined;
  if (!user) throw unauthenticated();
  return {
    userId: user.id,
    username: user.username,
    isSiteAdmin: user.is_site_admin,
    memberships: (await repo.memberships(user.id)).map((m) => ({
      organization: m.organization,
      organizationId: m.organization_id,
      permissions: toPermissionValues(m.permissions),
      isOwner: m.is_owner,
    })),
  };
}

/** Tokens are managed by their user and by site admins; to everyone else they do not exist. */
const canManageTokensOf = (caller: Principal, userId: string): boolean =>
  caller.isSiteAdmin || caller.userId === userId;

export function identityHandlers(db: Db): Handlers<adminorgsV1.IdentityHandlers> {
  const repo = new IdentityRepository(db);

  /** The token `id` if the caller may manage it, else NOT_FOUND. */
  async function manageableToken(principal: Principal | undefined, id: string) {
    const caller = requirePrincipal(principal);
    const token = await repo.getToken(id);
    if (!token || !canManageTokensOf(caller, token.user_id)) throw notFound();
    return token;
  }

  return {
    async Authenticate(req) {
      return { principal: await principalForToken(db, req.token) };
    },

    async CreateUser(req, { principal }) {
      requireSiteAdmin(principal);
      requireName(req.username, 'username', 'ADMIN_ORGS_INVALID_USERNAME');
      requireEmail(req.email, 'email', 'ADMIN_ORGS_INVALID_EMAIL');
      try {
        const user = await repo.insertUser({
          id: newId('user'),
          username: req.username,
          email: req.email,
          is_site_admin: req.isSiteAdmin,
        });
        return { user: toUser(user) };
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw invalidAttribute('ADMIN_ORGS_USERNAME_TAKEN', 'username', 'Username has already been taken');
        }
        throw err;
      }
    },

    async CreateAuthenticationToken(req, { principal }) {
      const caller = requirePrincipal(principal);
      if (!canManageTokensOf(caller, req.userId)) throw notFound();
      const user = await repo.getUser(req.userId);
      if (!user) throw notFound();
      const token = generateToken();
      const row = await repo.insertToken(newId('at'), user.id, token, req.description ?? '');
      return { authenticationToken: toAuthenticationToken(row), token };
    },

    async ListAuthenticationTokens(req, { principal }) {
      const caller = requirePrincipal(principal);
      if (!canManageTokensOf(caller, req.userId)) throw notFound();
      if (!(await repo.getUser(req.userId))) throw notFound();
      const w = pageWindow(req.page);
      const { rows, total } = await repo.listTokens(req.userId, w.size, w.offset);
      return { tokens: rows.map(toAuthenticationToken), page: pageInfo(w, total) };
    },

    async GetAuthenticationToken(req, { principal }) {
      return { authenticationToken: toAuthenticationToken(await manageableToken(principal, req.id)) };
    },

    async DeleteAuthenticationToken(req, { principal }) {
      const token = await manageableToken(principal, req.id);
      if (!(await repo.deleteToken(token.id))) throw notFound();
      return {};
    },

    async GetAccountDetails(_req, { principal }) {
      const caller = requirePrincipal(principal);
      const user = await repo.getUser(caller.userId);
      if (!user) throw notFound();
      return { user: toUser(user) };
    },

    async BatchGetUsers(req) {
      return { users: (await repo.getUsers(req.ids)).map(toUser) };
    },

    async ListUsers(req, { principal }) {
      requireSiteAdmin(principal);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.listUsers(
        { query: req.query ?? '', isSiteAdmin: req.isSiteAdmin ?? null },
        w.size,
        w.offset,
      );
      return { users: rows.map(toUser), page: pageInfo(w, total) };
    },

    async DeleteUser(req, { principal }) {
      requireSiteAdmin(principal);
      if (!(await repo.getUser(req.id))) throw notFound();
      if (principal?.userId === req.id) {
        throw unprocessable('ADMIN_ORGS_DELETE_SELF', 'you cannot delete your own account');
      }
      await db.transaction(async (tx) => {
        const r = new IdentityRepository(tx);
        const sole = await r.organizationsSolelyOwnedBy(req.id);
        if (sole.length > 0) {
          throw unprocessable(
            'ADMIN_ORGS_LAST_OWNER',
            `the user is the only owner of ${sole.join(', ')}; add another owner or delete the organization first`,
          );
        }
        // Tokens and memberships go with the user (foreign-key cascades) in the same statement.
        if (!(await r.deleteUser(req.id))) throw notFound();
      });
      return {};
    },
  };
}
