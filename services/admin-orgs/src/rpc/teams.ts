import { type adminorgsV1, organizationPermission, teamVisibility } from '@policyhub/contracts';
import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, unprocessable } from '@policyhub/errors';
import { canAccessOrganization, type Handlers, type Principal } from '@policyhub/grpc-runtime';
import { type TeamRow, TenancyRepository } from '../db/tenancy-repository.js';
import { OWNER, requireName, requireOwner, requirePrincipal, validatePermissions } from '../domain/rules.js';
import { toTeam } from './mappers.js';
import { isOwnerOrAdmin, nameTaken, type TenancyDeps, visibleOrganization } from './tenancy-access.js';

/** The stored word of a requested visibility; absent means `secret`. */
function readVisibility(value: adminorgsV1.TeamVisibility__Output | undefined): TeamRow['visibility'] {
  if (value === undefined) return 'secret';
  if (value === 'TEAM_VISIBILITY_UNSPECIFIED') {
    throw invalidAttribute(
      'ADMIN_ORGS_INVALID_TEAM_VISIBILITY',
      'visibility',
      'Visibility must be secret or organization',
    );
  }
  return teamVisibility.toWord(value);
}

/** The words of requested permissions; the unspecified value has none (refused by validatePermissions). */
const permissionWords = (values: adminorgsV1.OrganizationPermission__Output[]) =>
  values.map((v) =>
    v === 'ORGANIZATION_PERMISSION_UNSPECIFIED' ? undefined : organizationPermission.toWord(v),
  );

/**
 * Upstream visibility: owners (and site admins) see every team; other members see `organization`
 * teams and the teams they belong to; internal callers see all.
 */
const canSeeTeam = (p: Principal | undefined, team: TeamRow): boolean =>
  !p ||
  isOwnerOrAdmin(p, team.organization) ||
  (canAccessOrganization(p, team.organization) &&
    (team.visibility === 'organization' || team.user_ids.includes(p.userId)));

export function teamHandlers({ db }: TenancyDeps): Handlers<adminorgsV1.TeamsHandlers> {
  const repo = new TenancyRepository(db);
  const visibleTeam = async (principal: Principal | undefined, id: string) => {
    const team = await repo.getTeam(id);
    if (!team) throw notFound();
    await visibleOrganization(repo, principal, team.organization);
    if (!canSeeTeam(principal, team)) throw notFound();
    return team;
  };
  const ownedTeam = async (principal: Principal | undefined, id: string) => {
    const team = await visibleTeam(principal, id);
    requireOwner(principal, team.organization);
    return team;
  };
  const knownUsers = async (ids: string[]) => {
    const missing = await repo.missingUsers(ids);
    if (missing.length > 0)
      throw unprocessable('ADMIN_ORGS_USER_NOT_FOUND', `user not found: ${missing.join(', ')}`);
  };
  return {
    async CreateTeam(req, { principal }) {
      await visibleOrganization(repo, principal, req.organization);
      requireOwner(principal, req.organization);
      requireName(req.name, 'name', 'ADMIN_ORGS_INVALID_TEAM_NAME');
      const permissions = validatePermissions(permissionWords(req.permissions));
      const visibility = readVisibility(req.visibility);
      const id = newId('team');
      try {
        await repo.insertTeam(id, req.organization, req.name, permissions, visibility);
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken('team');
        throw err;
      }
      return { team: toTeam((await repo.getTeam(id))!) };
    },

    async GetTeam(req, { principal }) {
      return { team: toTeam(await visibleTeam(principal, req.id)) };
    },

    async ListTeams(req, { principal }) {
      const caller = requirePrincipal(principal);
      await visibleOrganization(repo, caller, req.organization);
      const w = pageWindow(req.page);
      const { rows, total } = await repo.listTeams(
        req.organization,
        {
          viewerId: isOwnerOrAdmin(caller, req.organization) ? null : caller.userId,
          query: req.query ?? '',
          names: req.names,
        },
        w.size,
        w.offset,
      );
      return { teams: rows.map(toTeam), page: pageInfo(w, total) };
    },

    async DeleteTeam(req, { principal }) {
      const team = await ownedTeam(principal, req.id);
      if (team.name === OWNER) {
        throw unprocessable('ADMIN_ORGS_OWNERS_TEAM', 'the owners team of an organization cannot be deleted');
      }
      await repo.deleteTeam(team.id);
      return {};
    },

    async AddTeamMembers(req, { principal }) {
      const team = await ownedTeam(principal, req.teamId);
      await knownUsers(req.userIds);
      await repo.addMembers(team.id, req.userIds);
      return { team: toTeam((await repo.getTeam(team.id))!) };
    },

    async RemoveTeamMembers(req, { principal }) {
      const team = await ownedTeam(principal, req.teamId);
      await db.transaction(async (tx) => {
        const r = new TenancyRepository(tx);
        // Row lock: two concurrent removals cannot each leave the other's owner as the last one.
        await r.lockTeam(team.id);
        await r.removeMembers(team.id, req.userIds);
        if (team.name === OWNER && (await r.getTeam(team.id))?.user_ids.length === 0) {
          throw unprocessable(
            'ADMIN_ORGS_LAST_OWNER',
            'the owners team must keep at least one member; add another owner first',
          );
        }
      });
      return { team: toTeam((await repo.getTeam(team.id))!) };
    },
  };
}
