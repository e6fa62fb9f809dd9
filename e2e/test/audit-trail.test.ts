import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import {
  createMember,
  createOrganization,
  createPolicy,
  createPolicySet,
  createUser,
  type TestUser,
  uniqueName,
} from './support/fixtures.js';
import {
  claimCheck,
  createRun,
  guardedWorkspace,
  type InternalRunsApi,
  internalRunsApi,
  planJson,
} from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * The audit trail over HTTP (docs/api/audit-trail.md): privileged acts leave records with actor,
 * time, target and outcome; an organization's owners read their organization's trail, site admins
 * everything; everyone else gets 404; no secret ever appears in it.
 */

interface AuditEvent {
  id: string;
  version: string;
  type: string;
  timestamp: string;
  auth: {
    accessor_id: string | null;
    description: string;
    type: string;
    impersonator_id: null;
    organization_id: string | null;
  };
  request: { id: null };
  resource: { id: string; type: string; action: string; meta: Record<string, unknown> };
}

const trailPath = (org: string, extra = '') =>
  `/organization/audit-trail?filter%5Borganization%5D%5Bname%5D=${encodeURIComponent(org)}${extra}`;

async function trail(api: ApiClient, org: string, extra = '') {
  const res = await api.get(trailPath(org, extra));
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res.body as { data: AuditEvent[]; pagination: Record<string, number | null> };
}

/** The records of `org` once `predicate` holds for them (other services' records arrive as events). */
async function trailUntil(api: ApiClient, org: string, predicate: (events: AuditEvent[]) => boolean) {
  for (let i = 0; i < 100; i++) {
    const { data } = await trail(api, org);
    if (predicate(data)) return data;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the trail of ${org} never satisfied the condition`);
}

const acts = (events: AuditEvent[]) => events.map((e) => `${e.resource.type}.${e.resource.action}`);

describe('audit trail', () => {
  let t: TestSystem;
  let org: { name: string; owner: TestUser };
  let orgId: string;
  let member: TestUser;
  let teamId: string;
  let tokenValue: string;

  beforeAll(async () => {
    t = await startTestSystem();
    org = await createOrganization(t, 'audit');
    const shown = await org.owner.api.get(`/organizations/${org.name}`);
    orgId = shown.body.data.attributes['external-id'];
    member = await createMember(t, org, ['read-runs']);
    const team = await org.owner.api.post(`/organizations/${org.name}/teams`, {
      data: { type: 'teams', attributes: { name: uniqueName('ops') } },
    });
    expect(team.status, team.text).toBe(201);
    teamId = team.body.data.id;
    expect((await org.owner.api.delete(`/teams/${teamId}`)).status).toBe(204);
    const token = await org.owner.api.post(`/users/${org.owner.id}/authentication-tokens`, {
      data: { type: 'authentication-tokens', attributes: { description: 'ci' } },
    });
    expect(token.status, token.text).toBe(201);
    tokenValue = token.body.data.attributes.token;
    // A sign-in with the new token.
    expect((await t.client(tokenValue).get('/account/details')).status).toBe(200);
  }, 120_000);
  afterAll(async () => t?.stop());

  it("records the organization's acts with actor, time, target and outcome, oldest first", async () => {
    const { data, pagination } = await trail(org.owner.api, org.name);
    expect(acts(data)).toEqual([
      'organization.create',
      'team.create',
      'team.add_members',
      'team.create',
      'team.destroy',
    ]);
    const [created] = data;
    expect(created).toMatchObject({
      version: '0',
      type: 'Resource',
      auth: {
        accessor_id: org.owner.id,
        description: org.owner.username,
        type: 'Client',
        impersonator_id: null,
        organization_id: orgId,
      },
      request: { id: null },
      resource: { id: orgId, type: 'organization', action: 'create' },
    });
    expect(created!.resource.meta).toMatchObject({
      outcome: 'succeeded',
      organization: org.name,
      name: org.name,
    });
    const destroyed = data.at(-1)!;
    expect(destroyed.resource).toMatchObject({ id: teamId, type: 'team', action: 'destroy' });
    const added = data[2]!;
    expect(added.resource.meta.user_ids).toEqual([member.id]);
    const times = data.map((e) => Date.parse(e.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(new Set(data.map((e) => e.id)).size).toBe(data.length);
    expect(pagination).toEqual({
      current_page: 1,
      prev_page: null,
      next_page: null,
      total_pages: 1,
      total_count: 5,
    });
  });

  it('pages with page[number] and page[size], and since returns only later acts', async () => {
    const all = (await trail(org.owner.api, org.name)).data;
    const second = await trail(org.owner.api, org.name, '&page%5Bnumber%5D=2&page%5Bsize%5D=2');
    expect(second.data.map((e) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
    expect(second.pagination).toEqual({
      current_page: 2,
      prev_page: 1,
      next_page: 3,
      total_pages: 3,
      total_count: 5,
    });
    const since = all[1]!.timestamp;
    const later = await trail(org.owner.api, org.name, `&since=${encodeURIComponent(since)}`);
    expect(later.data.map((e) => e.id)).toEqual(all.filter((e) => e.timestamp > since).map((e) => e.id));
    expect(later.data.length).toBeGreaterThan(0);
    expect(later.data.length).toBeLessThan(all.length);
  });

  it('refuses a bad since or page and a missing organization with a 422 naming the parameter', async () => {
    for (const [extra, code, parameter] of [
      ['&since=yesterday', 'GATEWAY_INVALID_SINCE', 'since'],
      ['&since=2026-13-45T00:00:00Z', 'GATEWAY_INVALID_SINCE', 'since'],
      ['&page%5Bsize%5D=1001', 'GATEWAY_INVALID_PAGE', 'page[size]'],
      ['&page%5Bnumber%5D=0', 'GATEWAY_INVALID_PAGE', 'page[number]'],
    ] as const) {
      const res = await org.owner.api.get(trailPath(org.name, extra));
      expect(res.status, `${extra}: ${res.text}`).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ code, source: { parameter } });
    }
    const missing = await org.owner.api.get('/organization/audit-trail');
    expect(missing.status, missing.text).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({
      code: 'ADMIN_ORGS_AUDIT_ORGANIZATION_REQUIRED',
      source: { parameter: 'filter[organization][name]' },
    });
  });

  it('is 404 to members who are not owners, to other organizations and to unknown names; 401 without a token', async () => {
    const other = await createOrganization(t, 'audit-other');
    for (const [who, api] of [
      ['a member', member.api],
      ["another organization's owner", other.owner.api],
    ] as const) {
      const res = await api.get(trailPath(org.name));
      expect(res.status, `${who}: ${res.text}`).toBe(404);
    }
    expect((await org.owner.api.get(trailPath(uniqueName('missing')))).status).toBe(404);
    expect((await t.anonymous.get(trailPath(org.name))).status).toBe(401);
    // The other organization's trail holds only its own acts.
    expect(acts((await trail(other.owner.api, other.name)).data)).toEqual(['organization.create']);
  });

  it("lets the organization's token read its trail without naming it, and no team token", async () => {
    const created = await org.owner.api.post(`/organizations/${org.name}/authentication-token`);
    expect(created.status, created.text).toBe(201);
    const orgToken = t.client(created.body.data.attributes.token);
    const own = await orgToken.get('/organization/audit-trail');
    expect(own.status, own.text).toBe(200);
    expect(own.body.data.map((e: AuditEvent) => e.auth.organization_id)).toEqual(
      own.body.data.map(() => orgId),
    );
    expect(own.body.data.find((e: AuditEvent) => e.resource.type === 'organization_token')).toMatchObject({
      auth: { accessor_id: org.owner.id },
      resource: { id: created.body.data.id, action: 'create' },
    });
    expect(own.text).not.toContain(created.body.data.attributes.token);
    const other = await createOrganization(t, 'audit-tok');
    expect((await orgToken.get(trailPath(other.name))).status).toBe(404);
    const teams = await org.owner.api.get(`/organizations/${org.name}/teams`);
    const owners = (teams.body.data as Array<{ id: string; attributes: { name: string } }>).find(
      (team) => team.attributes.name === 'owners',
    )!;
    const teamToken = await org.owner.api.post(`/teams/${owners.id}/authentication-token`);
    expect(teamToken.status, teamToken.text).toBe(201);
    const asTeam = t.client(teamToken.body.data.attributes.token);
    expect((await asTeam.get(trailPath(org.name))).status).toBe(404);
    expect((await asTeam.get('/organization/audit-trail')).status).toBe(404);
  });

  it('gives site admins every record, also acts outside any organization, and nobody else', async () => {
    const res = await t.admin.get(
      `/admin/audit-trail?since=${encodeURIComponent(new Date(0).toISOString())}`,
    );
    expect(res.status, res.text).toBe(200);
    const events = res.body.data as AuditEvent[];
    const created = events.find(
      (e) =>
        e.resource.type === 'authentication_token' &&
        e.resource.action === 'create' &&
        e.auth.accessor_id === org.owner.id,
    );
    expect(created).toMatchObject({
      auth: { organization_id: null },
      resource: { meta: { description: 'ci', outcome: 'succeeded' } },
    });
    expect(
      events.filter((e) => e.resource.action === 'sign_in' && e.resource.id === created!.resource.id),
    ).toHaveLength(1);
    expect(
      events.some(
        (e) => e.resource.type === 'user' && e.resource.action === 'create' && e.resource.id === member.id,
      ),
    ).toBe(true);
    const filtered = await t.admin.get(`/admin/audit-trail?filter%5Borganization%5D%5Bname%5D=${org.name}`);
    expect(acts(filtered.body.data)).toEqual(acts((await trail(org.owner.api, org.name)).data));
    for (const api of [org.owner.api, member.api]) {
      expect((await api.get('/admin/audit-trail')).status).toBe(404);
    }
    // Site admins may read an organization's trail too.
    expect((await t.admin.get(trailPath(org.name))).status).toBe(200);
  });

  it('records site-admin changes to an organization with the admin as actor', async () => {
    const target = await createOrganization(t, 'audit-admin');
    const disable = await t.admin.patch(`/admin/organizations/${target.name}`, {
      data: { type: 'organizations', attributes: { 'is-disabled': true } },
    });
    expect(disable.status, disable.text).toBe(200);
    const admin = (await t.admin.get('/account/details')).body.data;
    const events = (await trail(t.admin, target.name)).data;
    expect(events.at(-1)).toMatchObject({
      auth: { accessor_id: admin.id, description: 'admin' },
      resource: { type: 'organization', action: 'admin_update', meta: { is_disabled: true } },
    });
  });

  it('records project and workspace changes', async () => {
    const target = await createOrganization(t, 'audit-ws');
    const project = await target.owner.api.post(`/organizations/${target.name}/projects`, {
      data: { type: 'projects', attributes: { name: uniqueName('prj') } },
    });
    expect(project.status, project.text).toBe(201);
    const ws = await target.owner.api.post(`/organizations/${target.name}/workspaces`, {
      data: {
        type: 'workspaces',
        attributes: { name: uniqueName('ws') },
        relationships: { project: { data: { type: 'projects', id: project.body.data.id } } },
      },
    });
    expect(ws.status, ws.text).toBe(201);
    const renamed = await target.owner.api.patch(`/workspaces/${ws.body.data.id}`, {
      data: { type: 'workspaces', attributes: { description: 'prod' } },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect((await target.owner.api.delete(`/projects/${project.body.data.id}`)).status).toBe(204);
    const events = (await trail(target.owner.api, target.name)).data;
    expect(acts(events)).toEqual([
      'organization.create',
      'project.create',
      'workspace.create',
      'workspace.update',
      'project.destroy',
    ]);
    expect(events[3]!.resource).toMatchObject({ id: ws.body.data.id, meta: { changed: ['description'] } });
    expect(events[4]!.resource).toMatchObject({ id: project.body.data.id, meta: { workspaces_deleted: 1 } });
  });

  it('never holds a secret: no token value appears anywhere in the trail', async () => {
    const fresh = await createUser(t, 'audit-secret');
    const everything = await t.admin.get('/admin/audit-trail');
    expect(everything.status).toBe(200);
    for (const secret of [tokenValue, fresh.token, org.owner.token, member.token, t.system.siteAdminToken]) {
      expect(everything.text).not.toContain(secret);
    }
  });
});

describe('audit trail: acts of policy-sets and runs', () => {
  let t: TestSystem;
  let internal: InternalRunsApi;

  beforeAll(async () => {
    t = await startTestSystem();
    internal = internalRunsApi(t);
  }, 120_000);
  afterAll(async () => {
    internal?.close();
    await t?.stop();
  });

  it('records policy, set, version and override acts in the organization of the act, without the upload URL', async () => {
    const org = await createOrganization(t, 'audit-pol');
    const orgId = (await org.owner.api.get(`/organizations/${org.name}`)).body.data.attributes['external-id'];
    const { workspace, set, policies } = await guardedWorkspace(org.owner.api, org.name, [
      { name: uniqueName('soft'), level: 'soft-mandatory' },
    ]);
    const policy = policies[0]!;
    const patched = await org.owner.api.patch(`/policies/${policy.id}`, {
      data: { type: 'policies', attributes: { description: 'tightened' } },
    });
    expect(patched.status, patched.text).toBe(200);
    const spare = await createPolicy(org.owner.api, org.name);
    expect((await org.owner.api.delete(`/policies/${spare.id}`)).status).toBe(204);

    // A version: its upload URL is a capability and must stay out of the trail.
    const uploadable = await createPolicySet(org.owner.api, org.name);
    const version = await org.owner.api.request('POST', `/policy-sets/${uploadable.id}/versions`, undefined, {
      'content-type': 'application/vnd.api+json',
    });
    expect(version.status, version.text).toBe(201);
    const uploadUrl = version.body.data.links.upload as string;
    expect((await org.owner.api.delete(`/policy-sets/${uploadable.id}`)).status).toBe(204);

    // A soft failure, overridden by a member who may override.
    const run = await createRun(org.owner.api, workspace.id);
    await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(['aws_s3_bucket']) });
    const checkId = (await org.owner.api.get(`/runs/${run.id}`)).body.data.relationships['policy-checks']
      .data[0].id as string;
    const lease = await claimCheck(internal, checkId);
    await internal.evaluator.CompletePolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
      outcomes: [{ policySetId: set.id, policyName: policy.attributes.name as string, passed: false }],
      durationMs: 1,
      engineDetailsJson: '{}',
    });
    const approver = await createMember(t, org, ['read-runs', 'manage-policy-overrides']);
    const override = await approver.api.post(`/policy-checks/${checkId}/actions/override`, {
      comment: 'change window approved',
    });
    expect(override.status, override.text).toBe(200);

    const expected = [
      'policy.create',
      'policy_set.create',
      'policy.update',
      'policy.create',
      'policy.destroy',
      'policy_set.create',
      'policy_set_version.create',
      'policy_set.destroy',
      'policy_check.override',
    ];
    const events = await trailUntil(org.owner.api, org.name, (e) =>
      expected.every((a) => acts(e).includes(a)),
    );
    const mine = events.filter((e) => !['organization', 'team', 'workspace'].includes(e.resource.type));
    expect(mine.map((e) => `${e.resource.type}.${e.resource.action}`).sort()).toEqual([...expected].sort());
    for (const e of mine) {
      expect(e.auth.organization_id, acts([e])[0]).toBe(orgId);
      expect(e.resource.meta.outcome).toBe('succeeded');
    }
    const byOwner = mine.filter((e) => e.resource.type !== 'policy_check');
    expect(new Set(byOwner.map((e) => e.auth.accessor_id))).toEqual(new Set([org.owner.id]));
    expect(mine.find((e) => e.resource.type === 'policy' && e.resource.action === 'update')).toMatchObject({
      resource: { id: policy.id, meta: { changed: ['description'] } },
    });
    expect(mine.find((e) => e.resource.type === 'policy_set_version')).toMatchObject({
      resource: { id: version.body.data.id, meta: { policy_set_id: uploadable.id } },
    });
    expect(mine.find((e) => e.resource.type === 'policy_check')).toMatchObject({
      auth: { accessor_id: approver.id, description: approver.username, type: 'Client' },
      resource: {
        id: checkId,
        action: 'override',
        meta: { run_id: run.id, comment: 'change window approved' },
      },
    });
    const everything = await t.admin.get('/admin/audit-trail');
    expect(everything.text).not.toContain(uploadUrl);
    expect(everything.text).not.toContain(new URL(uploadUrl).pathname.split('/').pop()!);
  });

  it('records the creation, update and deletion of a set parameter with its key, never its value', async () => {
    const org = await createOrganization(t, 'audit-var');
    const set = await createPolicySet(org.owner.api, org.name);
    const secret = `s3cr3t-${uniqueName('audit')}`;
    const path = `/policy-sets/${set.id}/parameters`;
    const vars = (attributes: Record<string, unknown>) => ({ data: { type: 'vars', attributes } });
    const created = await org.owner.api.post(
      path,
      vars({ key: 'api_token', value: secret, sensitive: true }),
    );
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    const updated = await org.owner.api.patch(
      `${path}/${id}`,
      vars({ key: 'api_token2', value: `${secret}-2` }),
    );
    expect(updated.status, updated.text).toBe(200);
    expect((await org.owner.api.delete(`${path}/${id}`)).status).toBe(204);

    const events = await trailUntil(org.owner.api, org.name, (e) =>
      ['var.create', 'var.update', 'var.destroy'].every((a) => acts(e).includes(a)),
    );
    const ofVar = events.filter((e) => e.resource.type === 'var');
    expect(ofVar.map((e) => e.resource.action)).toEqual(['create', 'update', 'destroy']);
    expect(ofVar.map((e) => e.resource.meta)).toEqual([
      {
        organization: org.name,
        policy_set_id: set.id,
        key: 'api_token',
        sensitive: true,
        outcome: 'succeeded',
      },
      {
        organization: org.name,
        policy_set_id: set.id,
        key: 'api_token2',
        sensitive: true,
        outcome: 'succeeded',
      },
      { organization: org.name, policy_set_id: set.id, outcome: 'succeeded' },
    ]);
    for (const e of ofVar) {
      expect(e.resource.id).toBe(id);
      expect(e.auth.accessor_id).toBe(org.owner.id);
    }
    expect(JSON.stringify(events)).not.toContain(secret);
    expect((await t.admin.get('/admin/audit-trail')).text).not.toContain(secret);
  });
});

describe('audit trail: retention', () => {
  let t: TestSystem;

  beforeAll(async () => {
    // A short interval so that the sweep runs during the test; 30 days of retention.
    t = await startTestSystem({ auditRetention: { days: 30, intervalMs: 200 } });
  }, 120_000);
  afterAll(async () => t?.stop());

  it('deletes records older than the retention and keeps the others', async () => {
    const org = await createOrganization(t, 'audit-ret');
    const team = await org.owner.api.post(`/organizations/${org.name}/teams`, {
      data: { type: 'teams', attributes: { name: uniqueName('old') } },
    });
    expect(team.status, team.text).toBe(201);
    const before = (await trail(org.owner.api, org.name)).data;
    expect(acts(before)).toEqual(['organization.create', 'team.create']);
    // The organization's creation happened 31 days ago, as far as the trail knows.
    await t.system.services['admin-orgs']!.db.query(
      `UPDATE audit_trail SET occurred_at = now() - interval '31 days' WHERE id = $1`,
      [before[0]!.id],
    );
    const after = await trailUntil(org.owner.api, org.name, (e) => e.length === 1);
    expect(after.map((e) => e.id)).toEqual([before[1]!.id]);
  });
});
