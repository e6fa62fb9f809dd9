import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from './support/api.js';
import {
  createOrganization,
  createPolicy,
  createPolicySet,
  createWorkspace,
  uniqueName,
} from './support/fixtures.js';
import { claimCheck, createRun, type InternalRunsApi, internalRunsApi, planJson } from './support/runs.js';
import { DatabaseProbe } from './support/security-db.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Where the API was more lenient than any client needs: each of
 * these inputs is refused with a JSON:API 4xx, and a refused request changes nothing in any
 * service's database (every table compared before and after).
 */
let t: TestSystem;
let internal: InternalRunsApi;
let probe: DatabaseProbe;
let org: Awaited<ReturnType<typeof createOrganization>>;

beforeAll(async () => {
  t = await startTestSystem();
  internal = internalRunsApi(t);
  probe = DatabaseProbe.of(t);
  org = await createOrganization(t, 'strict');
});
afterAll(async () => {
  internal?.close();
  await t?.stop();
});

/** Runs `act`, expects it refused with `status` (and `source` on its first error), and no change anywhere. */
async function expectRefusedWithoutEffect(
  act: () => Promise<ApiResponse>,
  status: number,
  source?: Record<string, string>,
): Promise<ApiResponse> {
  await probe.settle();
  const before = await probe.snapshot();
  const res = await act();
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/vnd.api+json');
  expect(res.body.errors[0].status).toBe(String(status));
  if (source) expect(res.body.errors[0].source).toEqual(source);
  await probe.settle();
  expect(DatabaseProbe.changedTables(before, await probe.snapshot())).toEqual([]);
  return res;
}

const postSet = (attributes: Record<string, unknown>) =>
  org.owner.api.post(`/organizations/${org.name}/policy-sets`, {
    data: { type: 'policy-sets', attributes: { name: uniqueName('s'), ...attributes } },
  });

describe('attributes that are sent must have a value', () => {
  it('kind "" or null on create is a 422 at kind, not the default kind (policy sets and policies)', async () => {
    for (const kind of ['', null]) {
      await expectRefusedWithoutEffect(() => postSet({ kind }), 422, { pointer: '/data/attributes/kind' });
      await expectRefusedWithoutEffect(
        () =>
          org.owner.api.post(`/organizations/${org.name}/policies`, {
            data: { type: 'policies', attributes: { name: uniqueName('p'), kind } },
          }),
        422,
        { pointer: '/data/attributes/kind' },
      );
    }
    // Leaving it out still means the default.
    expect((await postSet({})).body.data.attributes.kind).toBe('kind_a');
  });

  it('name null or "" on PATCH is a 422 and the set (name, updated-at) is untouched', async () => {
    const set = await createPolicySet(org.owner.api, org.name);
    for (const name of [null, '']) {
      await expectRefusedWithoutEffect(
        () =>
          org.owner.api.patch(`/policy-sets/${set.id}`, {
            data: { type: 'policy-sets', attributes: { name } },
          }),
        422,
        { pointer: '/data/attributes/name' },
      );
    }
    expect((await org.owner.api.get(`/policy-sets/${set.id}`)).body.data).toEqual(set);
    const policy = await createPolicy(org.owner.api, org.name);
    await expectRefusedWithoutEffect(
      () =>
        org.owner.api.patch(`/policies/${policy.id}`, {
          data: { type: 'policies', attributes: { name: null } },
        }),
      422,
      { pointer: '/data/attributes/name' },
    );
  });
});

describe('query parameters', () => {
  it('an unknown include is a 400 on every list (and show) that includes nothing', async () => {
    const workspace = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, workspace.id);
    const comment = await org.owner.api.post(`/runs/${run.id}/comments`, {
      data: { type: 'comments', attributes: { body: 'hi' } },
    });
    const runEventId = comment.body.data.relationships['run-event'].data.id;
    const project = (await org.owner.api.get(`/organizations/${org.name}/projects`)).body.data[0].id;
    const paths = [
      '/organizations',
      `/organizations/${org.name}/projects`,
      `/organizations/${org.name}/workspaces`,
      `/runs/${run.id}/comments`,
      `/runs/${run.id}/run-events`,
      `/organizations/${org.name}`,
      `/projects/${project}`,
      `/workspaces/${workspace.id}`,
      `/comments/${comment.body.data.id}`,
      `/run-events/${runEventId}`,
      `/workspaces/${workspace.id}/configuration-versions`,
      `/plans/${(run.relationships.plan as { data: { id: string } }).data.id}`,
      `/users/${org.owner.id}/authentication-tokens`,
    ];
    for (const path of paths) {
      expect((await org.owner.api.get(path)).status, path).toBe(200);
      const res = await org.owner.api.get(`${path}?include=nonsense`);
      expect(res.status, path).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ status: '400', source: { parameter: 'include' } });
      expect(res.body.errors[0].detail).toContain('include parameter');
    }
    for (const path of [
      `/admin/organizations/${org.name}/relationships/module-consumers`,
      `/admin/organizations/${org.name}/relationships/provider-consumers`,
    ]) {
      expect((await t.admin.get(path)).status, path).toBe(200);
      expect((await t.admin.get(`${path}?include=owners`)).status, path).toBe(400);
    }
  });

  it('boolean filters accept exactly true and false', async () => {
    for (const [client, path, filter] of [
      [t.admin, '/admin/organizations', 'filter%5Bmodule_producer%5D'],
      [t.admin, '/admin/organizations', 'filter%5Bprovider_producer%5D'],
      [org.owner.api, `/organizations/${org.name}/policy-sets`, 'filter%5Bversioned%5D'],
    ] as const) {
      for (const ok of ['true', 'false'])
        expect((await client.get(`${path}?${filter}=${ok}`)).status).toBe(200);
      for (const bad of ['TRUE', 'False', '1', 'yes', '%20true']) {
        const res = await client.get(`${path}?${filter}=${bad}`);
        expect(res.status, `${filter}=${bad}`).toBe(422);
        expect(res.body.errors[0].source).toEqual({ parameter: decodeURIComponent(filter) });
      }
    }
  });
});

describe('override justification', () => {
  /** A soft-failed check on a fresh run, ready to be overridden. */
  async function softFailedCheck() {
    const workspace = await createWorkspace(org.owner.api, org.name);
    const policy = await createPolicy(org.owner.api, org.name, { 'enforcement-level': 'soft-mandatory' });
    const set = await createPolicySet(
      org.owner.api,
      org.name,
      {},
      {
        policies: [policy.id],
        workspaces: [workspace.id],
      },
    );
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
      engineDetailsJson: '{"rules":1}',
    });
    return { checkId, runId: run.id };
  }

  it('a body that is not a justification is a 422 at the offending member and does not override', async () => {
    const { checkId, runId } = await softFailedCheck();
    const override = (body: unknown) =>
      org.owner.api.post(`/policy-checks/${checkId}/actions/override`, body);
    const cases: Array<[unknown, string | undefined]> = [
      ['"text"', undefined],
      ['[]', undefined],
      [{ comment: 5 }, '/comment'],
      [{ comment: { text: 'x' } }, '/comment'],
      [{ data: 'x' }, '/data'],
      [{ data: [] }, '/data'],
      [{ data: { attributes: 'x' } }, '/data/attributes'],
      [{ data: { attributes: { comment: true } } }, '/data/attributes/comment'],
      [{ data: { type: 5 } }, '/data/type'],
      [{ comment: 'a', data: { attributes: { comment: 'b' } } }, '/data/attributes/comment'],
      [{ justification: 'unknown member' }, '/justification'],
    ];
    for (const [body, pointer] of cases) {
      const res = await expectRefusedWithoutEffect(() => override(body), 422);
      if (pointer) expect(res.body.errors[0].source, JSON.stringify(body)).toEqual({ pointer });
    }
    expect((await org.owner.api.get(`/policy-checks/${checkId}`)).body.data.attributes.status).toBe(
      'soft_failed',
    );

    // A check the caller cannot see is a 404 whatever the body.
    const stranger = await createOrganization(t, 'strict-other');
    const hidden = await stranger.owner.api.post(`/policy-checks/${checkId}/actions/override`, {
      comment: 5,
    });
    expect(hidden.status).toBe(404);

    // Well-formed justifications still work, and the comment is recorded on the run.
    const ok = await override({
      data: { type: 'policy-checks', attributes: { comment: 'approved by CAB' } },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.attributes.status).toBe('overridden');
    const events = (await org.owner.api.get(`/runs/${runId}/run-events`)).body.data;
    expect(events.at(-1).attributes).toMatchObject({
      action: 'policy-overridden',
      description: 'approved by CAB',
    });
  });

  it('no body, {} and {"comment": null} override without a justification', async () => {
    for (const body of [undefined, {}, { comment: null }]) {
      const { checkId } = await softFailedCheck();
      const res = await org.owner.api.post(`/policy-checks/${checkId}/actions/override`, body);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.attributes.status).toBe('overridden');
    }
  });
});

describe('malformed HTTP framing', () => {
  /** Writes raw bytes on a fresh connection and reads until the server closes it. */
  function rawExchange(bytes: string): Promise<string> {
    const { hostname, port } = new URL(t.system.baseUrl);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname);
      let out = '';
      socket.on('data', (d) => {
        out += d.toString('utf8');
      });
      socket.on('close', () => resolve(out));
      socket.on('error', (err) => (out ? resolve(out) : reject(err)));
      socket.write(bytes);
    });
  }

  const auth = () => `Authorization: Bearer ${org.owner.token}\r\n`;
  const orgBody = (name: string) =>
    JSON.stringify({ data: { type: 'organizations', attributes: { name, email: `o@${name}.example` } } });

  it('bad request lines, headers, lengths and chunked bodies get a JSON:API 400 and change nothing', async () => {
    const name = uniqueName('framing');
    const body = orgBody(name);
    const requests: Array<[string, string]> = [
      ['a request line that is not HTTP', 'NOT HTTP AT ALL\r\n\r\n'],
      ['a header name with a space', `GET /api/v2/ping HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n`],
      [
        'two different Content-Length headers',
        `POST /api/v2/organizations HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/vnd.api+json\r\nContent-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n\r\n${body} `,
      ],
      [
        'a chunk size that is not hexadecimal',
        `POST /api/v2/organizations HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/vnd.api+json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n${body}\r\n0\r\n\r\n`,
      ],
      [
        'a chunked body broken after its first chunk',
        `POST /api/v2/organizations HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/vnd.api+json\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\nnot-a-size\r\n\r\n`,
      ],
    ];
    for (const [label, bytes] of requests) {
      await probe.settle();
      const before = await probe.snapshot();
      const response = await rawExchange(bytes);
      const [head, payload] = response.split('\r\n\r\n');
      expect(head, label).toMatch(/^HTTP\/1\.1 400 /);
      expect(head, label).toMatch(/content-type: application\/vnd\.api\+json/i);
      expect(JSON.parse(payload!), label).toEqual({
        errors: [
          {
            status: '400',
            code: expect.stringMatching(/^GATEWAY_(MALFORMED_REQUEST|INVALID_CONTENT_LENGTH)$/),
            title: 'bad request',
            detail: expect.any(String),
          },
        ],
      });
      await probe.settle();
      expect(DatabaseProbe.changedTables(before, await probe.snapshot()), label).toEqual([]);
    }
    expect((await t.admin.get(`/organizations/${name}`)).status).toBe(404);
    // The same request, well framed, goes through.
    const good = await rawExchange(
      `POST /api/v2/organizations HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/vnd.api+json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(good).toMatch(/^HTTP\/1\.1 201 /);
  });
});
