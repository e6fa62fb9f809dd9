import { expect } from 'vitest';
import type { ApiClient } from './api.js';
import {
  createPolicy,
  createPolicySet,
  createProject,
  createUser,
  createWorkspace,
  type SystemApi,
  uniqueName,
} from './fixtures.js';
import { createRun } from './runs.js';

/** Ids of live resources of every type, created while the database was up. */
export interface KnownResources {
  org: string;
  userId: string;
  teamId: string;
  workspaceId: string;
  projectId: string;
  policyId: string;
  policySetId: string;
  versionId: string;
  runId: string;
  commentId: string;
}

export interface BatteryRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  /** Needs the site admin's token instead of the organization owner's. */
  asAdmin?: boolean;
}

const doc = (type: string, attributes: Record<string, unknown> = {}) => ({ data: { type, attributes } });

/**
 * One well-formed request per API route (every one a real client may send), for checks that
 * must hold whatever the route: e.g. "while Postgres is down, every route answers a clean 503".
 */
export function everyRoute(r: KnownResources): BatteryRequest[] {
  return [
    { method: 'GET', path: '/account/details' },
    {
      method: 'POST',
      path: '/admin/users',
      asAdmin: true,
      body: doc('users', { username: uniqueName('u'), email: `${uniqueName('u')}@example.com` }),
    },
    {
      method: 'POST',
      path: `/users/${r.userId}/authentication-tokens`,
      asAdmin: true,
      body: { data: { type: 'authentication-tokens' } },
    },
    { method: 'GET', path: '/organizations' },
    {
      method: 'POST',
      path: '/organizations',
      body: doc('organizations', { name: uniqueName('o'), email: 'x@example.com' }),
    },
    { method: 'GET', path: `/organizations/${r.org}` },
    {
      method: 'PATCH',
      path: `/organizations/${r.org}`,
      body: doc('organizations', { email: 'y@example.com' }),
    },
    { method: 'POST', path: `/organizations/${r.org}/teams`, body: doc('teams', { name: uniqueName('t') }) },
    { method: 'GET', path: `/teams/${r.teamId}` },
    {
      method: 'POST',
      path: `/teams/${r.teamId}/relationships/users`,
      body: { data: [{ type: 'users', id: r.userId }] },
    },
    {
      method: 'DELETE',
      path: `/teams/${r.teamId}/relationships/users`,
      body: { data: [{ type: 'users', id: r.userId }] },
    },
    { method: 'GET', path: `/organizations/${r.org}/projects` },
    {
      method: 'POST',
      path: `/organizations/${r.org}/projects`,
      body: doc('projects', { name: uniqueName('p') }),
    },
    { method: 'GET', path: `/projects/${r.projectId}` },
    { method: 'PATCH', path: `/projects/${r.projectId}`, body: doc('projects', { name: uniqueName('p') }) },
    { method: 'DELETE', path: `/projects/${r.projectId}` },
    { method: 'GET', path: `/organizations/${r.org}/workspaces` },
    {
      method: 'POST',
      path: `/organizations/${r.org}/workspaces`,
      body: doc('workspaces', { name: uniqueName('w') }),
    },
    { method: 'GET', path: `/workspaces/${r.workspaceId}` },
    {
      method: 'PATCH',
      path: `/workspaces/${r.workspaceId}`,
      body: doc('workspaces', { name: uniqueName('w') }),
    },
    { method: 'DELETE', path: `/workspaces/${r.workspaceId}` },
    { method: 'GET', path: `/workspaces/${r.workspaceId}/runs` },
    { method: 'GET', path: '/admin/organizations', asAdmin: true },
    { method: 'GET', path: `/admin/organizations/${r.org}`, asAdmin: true },
    {
      method: 'PATCH',
      path: `/admin/organizations/${r.org}`,
      asAdmin: true,
      body: doc('organizations', { 'is-disabled': false }),
    },
    { method: 'DELETE', path: `/admin/organizations/${r.org}`, asAdmin: true },
    { method: 'GET', path: `/admin/organizations/${r.org}/relationships/module-consumers`, asAdmin: true },
    {
      method: 'PATCH',
      path: `/admin/organizations/${r.org}/relationships/module-consumers`,
      asAdmin: true,
      body: { data: [] },
    },
    { method: 'GET', path: `/admin/organizations/${r.org}/relationships/provider-consumers`, asAdmin: true },
    { method: 'GET', path: `/organizations/${r.org}/policies` },
    {
      method: 'POST',
      path: `/organizations/${r.org}/policies`,
      body: doc('policies', { name: uniqueName('pol') }),
    },
    { method: 'GET', path: `/policies/${r.policyId}` },
    { method: 'PATCH', path: `/policies/${r.policyId}`, body: doc('policies', { description: 'x' }) },
    { method: 'DELETE', path: `/policies/${r.policyId}` },
    { method: 'GET', path: `/policies/${r.policyId}/download` },
    {
      method: 'PUT',
      path: `/policies/${r.policyId}/upload`,
      body: new TextEncoder().encode('main = rule { true }\n'),
    },
    { method: 'GET', path: `/organizations/${r.org}/policy-sets` },
    {
      method: 'POST',
      path: `/organizations/${r.org}/policy-sets`,
      body: doc('policy-sets', { name: uniqueName('set') }),
    },
    { method: 'GET', path: `/policy-sets/${r.policySetId}?include=current_version,newest_version` },
    {
      method: 'PATCH',
      path: `/policy-sets/${r.policySetId}`,
      body: doc('policy-sets', { description: 'x' }),
    },
    { method: 'DELETE', path: `/policy-sets/${r.policySetId}` },
    {
      method: 'POST',
      path: `/policy-sets/${r.policySetId}/relationships/workspaces`,
      body: { data: [{ type: 'workspaces', id: r.workspaceId }] },
    },
    {
      method: 'DELETE',
      path: `/policy-sets/${r.policySetId}/relationships/workspaces`,
      body: { data: [{ type: 'workspaces', id: r.workspaceId }] },
    },
    { method: 'POST', path: `/policy-sets/${r.policySetId}/versions` },
    { method: 'GET', path: `/policy-sets/${r.policySetId}/versions` },
    { method: 'GET', path: `/policy-set-versions/${r.versionId}?include=policy_set` },
    {
      method: 'POST',
      path: '/runs',
      body: {
        data: {
          type: 'runs',
          relationships: { workspace: { data: { type: 'workspaces', id: r.workspaceId } } },
        },
      },
    },
    { method: 'GET', path: `/runs/${r.runId}` },
    { method: 'GET', path: `/runs/${r.runId}/run-events` },
    { method: 'GET', path: `/runs/${r.runId}/comments` },
    { method: 'POST', path: `/runs/${r.runId}/comments`, body: doc('comments', { body: 'still there?' }) },
    { method: 'GET', path: `/comments/${r.commentId}` },
    { method: 'GET', path: `/runs/${r.runId}/policy-checks` },
    { method: 'GET', path: '/policy-checks/polchk-0000000000000000?include=run' },
    { method: 'GET', path: '/policy-checks/polchk-0000000000000000/output' },
    { method: 'POST', path: '/policy-checks/polchk-0000000000000000/actions/override' },
    { method: 'GET', path: '/run-events/re-0000000000000000' },
  ];
}

/** One live resource of every type in `org`, created through the API by its owner. */
export async function createKnownResources(
  t: SystemApi,
  owner: ApiClient,
  org: string,
): Promise<KnownResources> {
  const user = await createUser(t, 'known');
  const team = await owner.post(`/organizations/${org}/teams`, {
    data: { type: 'teams', attributes: { name: uniqueName('team') } },
  });
  expect(team.status, team.text).toBe(201);
  const workspace = await createWorkspace(owner, org);
  const project = await createProject(owner, org);
  const policy = await createPolicy(owner, org);
  const set = await createPolicySet(owner, org);
  const version = await owner.post(`/policy-sets/${set.id}/versions`);
  expect(version.status, version.text).toBe(201);
  const run = await createRun(owner, workspace.id);
  const comment = await owner.post(`/runs/${run.id}/comments`, {
    data: { type: 'comments', attributes: { body: 'hello' } },
  });
  expect(comment.status, comment.text).toBe(201);
  return {
    org,
    userId: user.id,
    teamId: team.body.data.id,
    workspaceId: workspace.id,
    projectId: project.id,
    policyId: policy.id,
    policySetId: set.id,
    versionId: version.body.data.id,
    runId: run.id,
    commentId: comment.body.data.id,
  };
}
