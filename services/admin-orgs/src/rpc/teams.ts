import { type adminorgsV1, organizationPermission, teamVisibility } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { TeamUseCases } from '../use-cases/teams.js';
import { toTeam } from './mappers.js';

/** A requested visibility as its word; undefined when absent, null for the unspecified value. */
const visibilityWord = (value: adminorgsV1.TeamVisibility__Output | undefined) =>
  value === undefined
    ? undefined
    : value === 'TEAM_VISIBILITY_UNSPECIFIED'
      ? null
      : teamVisibility.toWord(value);

/** The words of requested permissions; the unspecified value has none (refused by the use case). */
const permissionWords = (values: adminorgsV1.OrganizationPermission__Output[]) =>
  values.map((v) =>
    v === 'ORGANIZATION_PERMISSION_UNSPECIFIED' ? undefined : organizationPermission.toWord(v),
  );

export function teamHandlers(teams: TeamUseCases): Handlers<adminorgsV1.TeamsHandlers> {
  return {
    async CreateTeam(req, { principal }) {
      const team = await teams.create(principal, req.organization, {
        name: req.name,
        permissions: permissionWords(req.permissions),
        visibility: visibilityWord(req.visibility),
      });
      return { team: toTeam(team) };
    },

    async GetTeam(req, { principal }) {
      return { team: toTeam(await teams.get(principal, req.id)) };
    },

    async ListTeams(req, { principal }) {
      const filter = { query: req.query ?? '', names: req.names };
      const res = await teams.list(principal, req.organization, filter, req.page);
      return { teams: res.teams.map(toTeam), page: res.page };
    },

    async DeleteTeam(req, { principal }) {
      await teams.delete(principal, req.id);
      return {};
    },

    async AddTeamMembers(req, { principal }) {
      return { team: toTeam(await teams.addMembers(principal, req.teamId, req.userIds)) };
    },

    async RemoveTeamMembers(req, { principal }) {
      return { team: toTeam(await teams.removeMembers(principal, req.teamId, req.userIds)) };
    },
  };
}
