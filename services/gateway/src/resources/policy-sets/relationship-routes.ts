import { readIdentifierList } from '../../jsonapi/body.js';
import {
  type Api,
  type RouteContext,
  as,
  paramsOf,
  sendNoContent,
  readAfterVisibilityCheck,
} from '../../route-context.js';
import { IdParams, NoContent, schema } from '../../schemas/common.js';
import { identifierListBody } from '../../schemas/jsonapi.js';
import { validBody } from '../../schemas/validation.js';

type ChangeRpc =
  | 'AddPolicies'
  | 'RemovePolicies'
  | 'AttachProjects'
  | 'DetachProjects'
  | 'AttachWorkspaces'
  | 'DetachWorkspaces'
  | 'AddWorkspaceExclusions'
  | 'RemoveWorkspaceExclusions'
  | 'AddProjectExclusions'
  | 'RemoveProjectExclusions';

/** Path segment → element type and the RPCs adding / removing members. */
const RELATIONSHIPS: Array<{ path: string; type: string; add: ChangeRpc; remove: ChangeRpc }> = [
  { path: 'policies', type: 'policies', add: 'AddPolicies', remove: 'RemovePolicies' },
  { path: 'projects', type: 'projects', add: 'AttachProjects', remove: 'DetachProjects' },
  { path: 'workspaces', type: 'workspaces', add: 'AttachWorkspaces', remove: 'DetachWorkspaces' },
  {
    path: 'workspace-exclusions',
    type: 'workspaces',
    add: 'AddWorkspaceExclusions',
    remove: 'RemoveWorkspaceExclusions',
  },
  {
    path: 'project-exclusions',
    type: 'projects',
    add: 'AddProjectExclusions',
    remove: 'RemoveProjectExclusions',
  },
];

/**
 * The ten relationship endpoints: `{"data": [...]}` of identifiers (full resource objects are
 * accepted; only `type` and `id` are read), 204 on success.
 */
export function registerPolicySetRelationshipRoutes(app: Api, { clients }: RouteContext): void {
  for (const { path, type, add, remove } of RELATIONSHIPS) {
    for (const [method, rpc] of [
      ['POST', add],
      ['DELETE', remove],
    ] as const) {
      app.route({
        method,
        url: `/policy-sets/:id/relationships/${path}`,
        schema: schema('policy-sets', {
          summary: `${method === 'POST' ? 'Add' : 'Remove'} ${path} ${method === 'POST' ? 'to' : 'from'} a policy set`,
          params: IdParams,
          body: identifierListBody(type),
          response: { 204: NoContent },
        }),
        attachValidation: true,
        handler: async (request, reply) => {
          const { id } = paramsOf<'id'>(request);
          const ids = await readAfterVisibilityCheck(
            () => readIdentifierList(validBody(request)),
            () => clients.policySets.GetPolicySet({ id }, as(request)),
          );
          await clients.policySets[rpc]({ policySetId: id, ids }, as(request));
          return sendNoContent(reply);
        },
      });
    }
  }
}
