import { type adminorgsV1, organizationPermission, teamVisibility } from '@policyhub/contracts';
import type { FastifyRequest } from 'fastify';
import { AppError, invalidAttribute } from '@policyhub/errors';
import { RequestDocument, readIdentifierList } from '../../jsonapi/body.js';
import { parseInclude } from '../../jsonapi/include.js';
import { parsePage } from '../../jsonapi/pagination.js';
import {
  type Api,
  type RouteContext,
  as,
  readAfterVisibilityCheck,
  pageDocument,
  paramsOf,
  queryOf,
  sendDocument,
  sendNoContent,
} from '../../route-context.js';
import { serializeUser } from '../users/serializer.js';
import { USER } from '../users/schema.js';
import { TEAM } from './schema.js';
import { serializeTeam } from './serializer.js';
import {
  IdParams,
  listDocument,
  listQuery,
  NoContent,
  OrgParams,
  query,
  resourceDocument,
  schema,
} from '../../schemas/common.js';
import { identifierListBody } from '../../schemas/jsonapi.js';
import { validBody } from '../../schemas/validation.js';

/** `organization-access` is an object of permission → boolean; the granted ones become a list. */
function readOrganizationAccess(doc: RequestDocument): adminorgsV1.OrganizationPermission[] {
  const access = doc.object('organization-access');
  if (!access) return [];
  const granted: adminorgsV1.OrganizationPermission[] = [];
  for (const [key, value] of Object.entries(access)) {
    if (typeof value !== 'boolean') {
      throw new AppError('invalid', 'GATEWAY_INVALID_BODY', [
        {
          title: 'invalid attribute',
          detail: `${key} must be true or false`,
          pointer: `/data/attributes/organization-access/${key}`,
        },
      ]);
    }
    const permission = organizationPermission.fromWord(key);
    if (permission === undefined) {
      throw new AppError('invalid', 'GATEWAY_INVALID_BODY', [
        {
          title: 'invalid attribute',
          detail: `unknown permission ${key}`,
          pointer: `/data/attributes/organization-access/${key}`,
        },
      ]);
    }
    if (value) granted.push(permission);
  }
  return granted;
}

/**
 * `visibility`: `secret` or `organization`; absent or `""` leaves admin-orgs' default. Checked
 * after the rest of the body, as admin-orgs did when it read the word.
 */
function visibilityOf(word: string | undefined): adminorgsV1.TeamVisibility | undefined {
  if (word === undefined || word === '') return undefined;
  const visibility = teamVisibility.fromWord(word);
  if (visibility === undefined) {
    throw invalidAttribute(
      'ADMIN_ORGS_INVALID_TEAM_VISIBILITY',
      'visibility',
      'Visibility must be secret or organization',
    );
  }
  return visibility;
}

const TEAM_INCLUDES = ['users'] as const;

export function registerTeamRoutes(app: Api, ctx: RouteContext): void {
  const { clients } = ctx;
  app.post(
    '/organizations/:org/teams',
    {
      config: { changesAccess: true },
      schema: schema('teams', {
        summary: 'Create a team',
        params: OrgParams,
        body: TEAM.body({ create: true }),
        response: { 201: resourceDocument(TEAM) },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const doc = new RequestDocument(validBody(request));
      const name = doc.string('name');
      const permissions = readOrganizationAccess(doc);
      const visibility = doc.string('visibility');
      const team = (
        await clients.teams.CreateTeam(
          {
            organization: paramsOf<'org'>(request).org,
            name,
            permissions,
            visibility: visibilityOf(visibility),
          },
          as(request),
        )
      ).team!;
      return sendDocument(reply, 201, { data: serializeTeam(team, request.principal) });
    },
  );

  /** The members of the listed teams as `included` users, in one batch call. */
  const membersOf = async (request: FastifyRequest, teams: adminorgsV1.Team__Output[]) => {
    const ids = [...new Set(teams.flatMap((t) => t.userIds))];
    if (ids.length === 0) return [];
    const { users } = await clients.identity.BatchGetUsers({ ids }, as(request));
    return users.map(serializeUser);
  };

  // Owners see every team; other members the `organization` teams and their own (upstream).
  app.get(
    '/organizations/:org/teams',
    {
      schema: schema('teams', {
        summary: "List an organization's teams",
        params: OrgParams,
        querystring: listQuery(TEAM_INCLUDES, {
          q: 'Teams whose name contains this text.',
          'filter[names]': 'Comma-separated team names.',
        }),
        response: { 200: listDocument(TEAM, { included: [USER] }) },
      }),
    },
    async (request, reply) => {
      const query = queryOf(request);
      const page = parsePage(query);
      const include = parseInclude(query.include, TEAM_INCLUDES);
      const names = (query['filter[names]'] ?? '')
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '');
      const res = await clients.teams.ListTeams(
        { organization: paramsOf<'org'>(request).org, page, query: query.q ?? '', names },
        as(request),
      );
      const included = include.has('users') ? await membersOf(request, res.teams) : [];
      return sendDocument(reply, 200, {
        data: res.teams.map((x) => serializeTeam(x, request.principal)),
        ...(include.size > 0 ? { included } : {}),
        ...pageDocument(ctx, request, res.page!),
      });
    },
  );

  app.get(
    '/teams/:id',
    {
      schema: schema('teams', {
        summary: 'Show a team',
        params: IdParams,
        querystring: query({}, { include: TEAM_INCLUDES }),
        response: { 200: resourceDocument(TEAM, { included: [USER] }) },
      }),
    },
    async (request, reply) => {
      const include = parseInclude(queryOf(request).include, TEAM_INCLUDES);
      const team = (await clients.teams.GetTeam({ id: paramsOf<'id'>(request).id }, as(request))).team!;
      const included = include.has('users') ? await membersOf(request, [team]) : [];
      return sendDocument(reply, 200, {
        data: serializeTeam(team, request.principal),
        ...(include.size > 0 ? { included } : {}),
      });
    },
  );

  // Owners only; the owners team stays (422). Members lose the team's permissions at once.
  app.delete(
    '/teams/:id',
    {
      config: { changesAccess: true },
      schema: schema('teams', {
        summary: 'Delete a team (owners; not the owners team)',
        params: IdParams,
        response: { 204: NoContent },
      }),
    },
    async (request, reply) => {
      await clients.teams.DeleteTeam({ id: paramsOf<'id'>(request).id }, as(request));
      return sendNoContent(reply);
    },
  );

  app.post(
    '/teams/:id/relationships/users',
    {
      config: { changesAccess: true },
      schema: schema('teams', {
        summary: 'Add users to a team',
        params: IdParams,
        body: identifierListBody('users'),
        response: { 204: NoContent },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const teamId = paramsOf<'id'>(request).id;
      const userIds = await readAfterVisibilityCheck(
        () => readIdentifierList(validBody(request)),
        () => clients.teams.GetTeam({ id: teamId }, as(request)),
      );
      await clients.teams.AddTeamMembers({ teamId, userIds }, as(request));
      return sendNoContent(reply);
    },
  );

  app.delete(
    '/teams/:id/relationships/users',
    {
      config: { changesAccess: true },
      schema: schema('teams', {
        summary: 'Remove users from a team',
        params: IdParams,
        body: identifierListBody('users'),
        response: { 204: NoContent },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const teamId = paramsOf<'id'>(request).id;
      const userIds = await readAfterVisibilityCheck(
        () => readIdentifierList(validBody(request)),
        () => clients.teams.GetTeam({ id: teamId }, as(request)),
      );
      await clients.teams.RemoveTeamMembers({ teamId, userIds }, as(request));
      return sendNoContent(reply);
    },
  );
}
