import { PERMISSIONS } from '@policyhub/grpc-runtime';
import type { FastifyInstance } from 'fastify';
import { AppError } from '@policyhub/errors';
import { RequestDocument, readIdentifierList } from '../../jsonapi/body.js';
import { type RouteContext, as, paramsOf, sendDocument, sendNoContent } from '../../route-context.js';
import { serializeTeam } from './serializer.js';

/** `organization-access` is an object of permission → boolean; the granted ones become a list. */
function readOrganizationAccess(doc: RequestDocument): string[] {
  const access = doc.object('organization-access');
  if (!access) return [];
  const granted: string[] = [];
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
    if (!(PERMISSIONS as readonly string[]).includes(key)) {
      throw new AppError('invalid', 'GATEWAY_INVALID_BODY', [
        {
          title: 'invalid attribute',
          detail: `unknown permission ${key}`,
          pointer: `/data/attributes/organization-access/${key}`,
        },
      ]);
    }
    if (value) granted.push(key);
  }
  return granted;
}

export function registerTeamRoutes(app: FastifyInstance, { clients }: RouteContext): void {
  app.post('/organizations/:org/teams', { config: { changesAccess: true } }, async (request, reply) => {
    const doc = new RequestDocument(request.body, 'teams');
    const name = doc.string('name', { required: true, maxLength: 90 });
    const permissions = readOrganizationAccess(doc);
    doc.done();
    const team = await clients.teams.CreateTeam(
      { organization: paramsOf<'org'>(request).org, name, permissions },
      as(request),
    );
    return sendDocument(reply, 201, { data: serializeTeam(team) });
  });

  app.get('/teams/:id', async (request, reply) => {
    const team = await clients.teams.GetTeam({ id: paramsOf<'id'>(request).id }, as(request));
    return sendDocument(reply, 200, { data: serializeTeam(team) });
  });

  app.post('/teams/:id/relationships/users', { config: { changesAccess: true } }, async (request, reply) => {
    const teamId = paramsOf<'id'>(request).id;
    await clients.teams.GetTeam({ id: teamId }, as(request));
    const userIds = readIdentifierList(request.body, 'users');
    await clients.teams.AddTeamMembers({ teamId, userIds }, as(request));
    return sendNoContent(reply);
  });

  app.delete(
    '/teams/:id/relationships/users',
    { config: { changesAccess: true } },
    async (request, reply) => {
      const teamId = paramsOf<'id'>(request).id;
      await clients.teams.GetTeam({ id: teamId }, as(request));
      const userIds = readIdentifierList(request.body, 'users');
      await clients.teams.RemoveTeamMembers({ teamId, userIds }, as(request));
      return sendNoContent(reply);
    },
  );
}
