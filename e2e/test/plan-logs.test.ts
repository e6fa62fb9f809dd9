import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMember,
  createOrganization,
  createUser,
  createWorkspace,
  uniqueName,
} from './support/fixtures.js';
import { createRun, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * A plan's `log-read-url` (go-tfe's Plans.Logs reads it): a capability URL, read without a token,
 * answering what PolicyHub recorded of the plan between STX and ETX, and only while the caller it
 * was handed to may still read runs.
 */
let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'plan-logs');
});
afterAll(() => t?.stop());

const STX = '\u0002';
const ETX = '\u0003';

async function pendingPlan() {
  const ws = await createWorkspace(org.owner.api, org.name);
  const run = await createRun(org.owner.api, ws.id);
  return { ws, runId: run.id, planId: (run.relationships.plan as { data: { id: string } }).data.id };
}

const logUrlOf = async (planId: string, api = org.owner.api) => {
  const res = await api.get(`/plans/${planId}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.attributes['log-read-url'] as string;
};

/** A plain GET, as go-tfe's log reader makes it (optionally with its bearer token). */
const read = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

describe('plan log-read-url', () => {
  it('reads the log of a finished plan without a token: the JSON it received and its counts', async () => {
    const { planId } = await pendingPlan();
    const document = planJson(['aws_instance', 'aws_s3_bucket']);
    const put = await org.owner.api.put(`/plans/${planId}/json-output`, document, {
      'content-type': 'application/json',
    });
    expect(put.status, put.text).toBe(200);
    const url = await logUrlOf(planId);
    expect(url.startsWith(`${t.system.baseUrl}/api/v2/plan-logs/`)).toBe(true);

    const log = await read(url);
    expect(log.status, log.text).toBe(200);
    expect(log.type).toMatch(/^text\/plain/);
    expect(log.text.startsWith(STX)).toBe(true);
    expect(log.text.endsWith(ETX)).toBe(true);
    expect(log.text).toContain(`plan ${planId}`);
    expect(log.text).toContain(`finished: received the plan JSON (${document.length} bytes)`);
    expect(log.text).toContain('Plan: 2 to add, 0 to change, 0 to destroy.');
    // go-tfe sends its token along; the URL answers the same.
    const withToken = await read(url, { authorization: `Bearer ${org.owner.token}` });
    expect(withToken.text).toBe(log.text);
    // go-tfe reads in pieces with limit and offset (bytes).
    const piece = await read(`${url}?offset=1&limit=20`);
    expect(piece.status).toBe(200);
    expect(piece.text).toBe(Buffer.from(log.text).subarray(1, 21).toString());
    expect((await read(`${url}?offset=100000&limit=10`)).text).toBe('');
    expect((await read(`${url}?offset=-1`)).status).toBe(400);
  });

  it('shows a pending plan waiting, without ETX (the log may grow), and a canceled one ended', async () => {
    const { planId, runId } = await pendingPlan();
    const url = await logUrlOf(planId);
    const pending = await read(url);
    expect(pending.status).toBe(200);
    expect(pending.text.startsWith(STX)).toBe(true);
    expect(pending.text.endsWith(ETX)).toBe(false);
    expect(pending.text).toContain('pending: waiting for the plan JSON');
    expect(pending.text).not.toContain('Plan:');

    const cancel = await org.owner.api.post(`/runs/${runId}/actions/cancel`, {});
    expect(cancel.status, cancel.text).toBe(202);
    const canceled = await read(url);
    expect(canceled.text.endsWith(ETX)).toBe(true);
    expect(canceled.text).toContain('canceled: the run ended before the plan JSON arrived');
  });

  it('answers 404 for a forged, altered or foreign token, and once the plan is deleted', async () => {
    const { ws, planId } = await pendingPlan();
    const url = await logUrlOf(planId);
    const token = new URL(url).pathname.split('/').pop()!;
    const [keyId, payload, mac] = token.split('.') as [string, string, string];
    const base = `${t.system.baseUrl}/api/v2/plan-logs`;
    // Another plan's id in a payload signed for the first one.
    const other = await pendingPlan();
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const swapped = Buffer.from(JSON.stringify({ ...claims, p: other.planId })).toString('base64url');
    // The signature flipped in its first character.
    const flipped = `${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    for (const forged of [
      'not-a-token',
      `${keyId}.${swapped}.${mac}`,
      `${keyId}.${payload}.${flipped}`,
      `other-key.${payload}.${mac}`,
      `${keyId}.${payload}`,
    ]) {
      const res = await read(`${base}/${encodeURIComponent(forged)}`);
      expect(res.status, forged).toBe(404);
      // Like every 404: nothing tells a forged URL from a lapsed one.
      expect(JSON.parse(res.text).errors[0].code, forged).toBe('NOT_FOUND');
    }
    expect((await read(url)).status).toBe(200);
    expect((await org.owner.api.delete(`/workspaces/${ws.id}`)).status).toBe(204);
    expect((await read(url)).status).toBe(404);
  });

  it("is a read-runs member's own right: it stops working when they leave the team, and works again when they return", async () => {
    const user = await createUser(t, 'log-reader');
    const team = await org.owner.api.post(`/organizations/${org.name}/teams`, {
      data: {
        type: 'teams',
        attributes: { name: uniqueName('team'), 'organization-access': { 'read-runs': true } },
      },
    });
    expect(team.status, team.text).toBe(201);
    const members = `/teams/${team.body.data.id}/relationships/users`;
    const member = { data: [{ type: 'users', id: user.id }] };
    expect((await org.owner.api.post(members, member)).status).toBe(204);

    const { planId } = await pendingPlan();
    const url = await logUrlOf(planId, user.api);
    expect((await read(url)).status).toBe(200);
    expect((await org.owner.api.delete(members, member)).status).toBe(204);
    expect((await read(url)).status).toBe(404);
    expect((await org.owner.api.post(members, member)).status).toBe(204);
    expect((await read(url)).status).toBe(200);
  });

  it('is not handed to a caller who may not read the plan', async () => {
    const { planId } = await pendingPlan();
    const outsider = await createOrganization(t, 'plan-logs-other');
    expect((await outsider.owner.api.get(`/plans/${planId}`)).status).toBe(404);
    // A member without read-runs cannot see the plan either.
    const member = await createMember(t, org, []);
    expect((await member.api.get(`/plans/${planId}`)).status).toBe(404);
  });
});
