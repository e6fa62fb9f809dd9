import {
  type adminorgsV1,
  organizationPermission,
  principalKind,
  toOptionalTimestamp,
} from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { Authenticated, IdentityUseCases } from '../use-cases/identity.js';
import type { TeamAndOrganizationTokenUseCases } from '../use-cases/team-and-organization-tokens.js';
import { toAuthenticationToken, toPermissionValues, toUser } from './mappers.js';

const toPrincipal = (a: Authenticated): adminorgsV1.Principal => ({
  kind: principalKind.fromKnownWord(a.kind),
  userId: a.id,
  username: a.username,
  isSiteAdmin: a.isSiteAdmin,
  memberships: a.memberships.map((m) => ({
    organization: m.organization,
    organizationId: m.organization_id,
    permissions: toPermissionValues(m.permissions),
    isOwner: m.is_owner,
  })),
  tokenExpiredAt: toOptionalTimestamp(a.tokenExpiredAt),
});

export function identityHandlers(
  identity: IdentityUseCases,
  tokens: TeamAndOrganizationTokenUseCases,
): Handlers<adminorgsV1.IdentityHandlers> {
  return {
    async Authenticate(req) {
      return { principal: toPrincipal(await identity.authenticate(req.token)) };
    },

    async CreateUser(req, { principal }) {
      const user = await identity.createUser(principal, {
        username: req.username,
        email: req.email,
        isSiteAdmin: req.isSiteAdmin,
      });
      return { user: toUser(user) };
    },

    async CreateAuthenticationToken(req, { principal }) {
      const { row, token } = await identity.createToken(
        principal,
        req.userId,
        req.description ?? '',
        req.expiredAt,
      );
      return { authenticationToken: toAuthenticationToken(row), token };
    },

    async ListAuthenticationTokens(req, { principal }) {
      const res = await identity.listTokens(principal, req.userId, req.page);
      return { tokens: res.tokens.map(toAuthenticationToken), page: res.page };
    },

    async GetAuthenticationToken(req, { principal }) {
      return { authenticationToken: toAuthenticationToken(await identity.getToken(principal, req.id)) };
    },

    async DeleteAuthenticationToken(req, { principal }) {
      await identity.deleteToken(principal, req.id);
      return {};
    },

    async GetAccountDetails(_req, { principal }) {
      return { user: toUser(await identity.account(principal)) };
    },

    async BatchGetUsers(req) {
      return { users: (await identity.batchGetUsers(req.ids)).map(toUser) };
    },

    async ListUsers(req, { principal }) {
      const filter = { query: req.query ?? '', isSiteAdmin: req.isSiteAdmin ?? null };
      const res = await identity.listUsers(principal, filter, req.page);
      return { users: res.users.map(toUser), page: res.page };
    },

    async DeleteUser(req, { principal }) {
      await identity.deleteUser(principal, req.id);
      return {};
    },

    async CheckPermission(req, { principal }) {
      // The unspecified permission is held by nobody.
      if (req.permission === 'ORGANIZATION_PERMISSION_UNSPECIFIED') return { permitted: false };
      const permitted = await identity.checkPermission(principal, {
        subjectId: req.subjectId,
        organization: req.organization,
        organizationId: req.organizationId,
        permission: organizationPermission.toWord(req.permission),
      });
      return { permitted };
    },

    async CreateTeamToken(req, { principal }) {
      const { row, token } = await tokens.createTeamToken(principal, req.teamId, {
        description: req.description,
        expiredAt: req.expiredAt,
      });
      return { authenticationToken: toAuthenticationToken(row), token };
    },

    async GetTeamToken(req, { principal }) {
      return { authenticationToken: toAuthenticationToken(await tokens.getTeamToken(principal, req.teamId)) };
    },

    async DeleteTeamToken(req, { principal }) {
      await tokens.deleteTeamToken(principal, req.teamId);
      return {};
    },

    async CreateOrganizationToken(req, { principal }) {
      const { row, token } = await tokens.createOrganizationToken(principal, req.organization, {
        description: req.description,
        expiredAt: req.expiredAt,
      });
      return { authenticationToken: toAuthenticationToken(row), token };
    },

    async GetOrganizationToken(req, { principal }) {
      return {
        authenticationToken: toAuthenticationToken(
          await tokens.getOrganizationToken(principal, req.organization),
        ),
      };
    },

    async DeleteOrganizationToken(req, { principal }) {
      await tokens.deleteOrganizationToken(principal, req.organization);
      return {};
    },
  };
}
