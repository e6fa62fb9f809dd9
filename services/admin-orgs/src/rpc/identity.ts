import { randomBytes } from 'node:crypto';
import type { adminorgsV1 } from '@policyhub/contracts';
import { type Db, isUniqueViolation } from '@policyhub/db';
import { invalidAttribute, newId, notFound, unauthenticated } from '@policyhub/errors';
import type { Principal } from '@policyhub/grpc-runtime';
import { IdentityRepository } from '../db/identity-repository.js';
import { OWNER, requireEmail, requireName, requirePrincipal, requireSiteAdmin } from '../domain/rules.js';
import { toUser } from './mappers.js';
import type { Handlers } from '@policyhub/grpc-runtime';

/** A new secret token: 32 random bytes, url-safe; only its SHA-256 is stored. */
export const generateToken = (): string => `ph.${randomBytes(32).toString('base64url')}`;

export async function principalForToken(db: Db, token: string): Promise<Principal> {
  const repo = new IdentityRepository(db);
  const user = token ? await repo.findUserByToken(token) : undefined;
  if (!user) throw unauthenticated();
  const memberships = new Map<string, readonly string[]>();
  for (const m of await repo.memberships(user.id)) {
    memberships.set(m.organization, m.is_owner ? [...m.permissions, OWNER] : m.permissions);
  }
  return { userId: user.id, username: user.username, isSiteAdmin: user.is_site_admin, memberships };
}

export function identityHandlers(db: Db): Handlers<adminorgsV1.IdentityHandlers> {
  const repo = new IdentityRepository(db);
  return {
    async Authenticate(req) {
      const p = await principalForToken(db, req.token);
      return {
        userId: p.userId,
        username: p.username,
        isSiteAdmin: p.isSiteAdmin,
        memberships: [...p.memberships].map(([organization, permissions]) => ({
          organization,
          permissions: [...permissions],
        })),
      };
    },

    async CreateUser(req, { principal }) {
      requireSiteAdmin(principal);
      requireName(req.username, '/data/attributes/username', 'ADMIN_ORGS_INVALID_USERNAME');
      requireEmail(req.email, '/data/attributes/email', 'ADMIN_ORGS_INVALID_EMAIL');
      try {
        return toUser(
          await repo.insertUser({
            id: newId('user'),
            username: req.username,
            email: req.email,
            is_site_admin: req.isSiteAdmin,
          }),
        );
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw invalidAttribute(
            'ADMIN_ORGS_USERNAME_TAKEN',
            '/data/attributes/username',
            'Username has already been taken',
          );
        }
        throw err;
      }
    },

    async CreateAuthenticationToken(req, { principal }) {
      const caller = requirePrincipal(principal);
      if (caller.userId !== req.userId && !caller.isSiteAdmin) throw notFound();
      const user = await repo.getUser(req.userId);
      if (!user) throw notFound();
      const token = generateToken();
      const row = await repo.insertToken(newId('at'), user.id, token, req.description);
      return {
        id: row.id,
        userId: row.user_id,
        description: row.description,
        createdAt: row.created_at,
        token,
      };
    },

    async GetAccountDetails(_req, { principal }) {
      const caller = requirePrincipal(principal);
      const user = await repo.getUser(caller.userId);
      if (!user) throw notFound();
      return toUser(user);
    },

    async BatchGetUsers(req) {
      return { users: (await repo.getUsers(req.ids)).map(toUser) };
    },
  };
}
