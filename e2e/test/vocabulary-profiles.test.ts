import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { adminUpdate } from './support/admin-organizations.js';
import {
  createOrganization,
  createPolicy,
  createPolicySet,
  createWorkspace,
  uniqueName,
} from './support/fixtures.js';
import { claimCheck, createRun, type InternalRunsApi, internalRunsApi, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * API_VOCABULARY (ADR 0020): `spec` (default) answers in the spec's names, `tfe` in upstream's,
 * everywhere a renamed value appears (create, show, list, included, errors, the policy check
 * result hash, the admin organization attributes). Both profiles read both vocabularies. The
 * expected names are written out here, not taken from the gateway's table, so a wrong table fails.
 */
const PROFILES = {
  spec: {
    kinds: { kind_a: 'kind_a', kind_b: 'kind_b' },
    engineKey: 'kind_a',
    reportFramework: 'kind_a',
    applyAlias: 'engine-build-worker-apply-timeout',
    planAlias: 'engine-build-worker-plan-timeout',
    sudo: 'engine-worker-sudo-enabled',
  },
  tfe: {
    kinds: { kind_a: 'sentinel', kind_b: 'opa' },
    engineKey: 'sentinel',
    reportFramework: 'Sentinel',
    applyAlias: 'terraform-build-worker-apply-timeout',
    planAlias: 'terraform-build-worker-plan-timeout',
    sudo: 'terraform-worker-sudo-enabled',
  },
} as const;

type Profile = keyof typeof PROFILES;
type Kind = 'kind_a' | 'kind_b';
/** Every spelling a client may send for each kind, whatever the profile. */
const SPELLINGS: Record<Kind, string[]> = { kind_a: ['kind_a', 'sentinel'], kind_b: ['kind_b', 'opa'] };
const OTHER: Record<Profile, Profile> = { spec: 'tfe', tfe: 'spec' };

describe.each(['spec', 'tfe'] as const)('API_VOCABULARY=%s', (profile) => {
  const names = PROFILES[profile];
  const foreign = PROFILES[OTHER[profile]];
  let t: TestSystem;
  let internal: InternalRunsApi;
  let org: Awaited<ReturnType<typeof createOrganization>>;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestSystem({ apiVocabulary: profile });
    internal = internalRunsApi(t);
    org = await createOrganization(t, `voc-${profile}`);
    api = org.owner.api;
  });
  afterAll(async () => {
    internal?.close();
    await t?.stop();
  });

  describe('policy sets and policies', () => {
    it.each(['kind_a', 'kind_b'] as const)(
      'a %s set sent in either vocabulary reads back in the profile names on create, show, list, filter and included',
      async (kind) => {
        for (const spelling of SPELLINGS[kind]) {
          const policy = await createPolicy(api, org.name, { kind: spelling });
          expect(policy.attributes.kind).toBe(names.kinds[kind]);
          const created = await createPolicySet(
            api,
            org.name,
            { kind: spelling, ...(kind === 'kind_a' ? { 'agent-enabled': true } : {}) },
            { policies: [policy.id] },
          );
          expect(created.attributes.kind).toBe(names.kinds[kind]);
          const shown = (await api.get(`/policy-sets/${created.id}`)).body.data;
          expect(shown).toEqual(created);

          // filter[kind] in either vocabulary; the other kind is filtered out.
          for (const filter of [...SPELLINGS[kind]]) {
            const list = await api.get(
              `/organizations/${org.name}/policy-sets?filter%5Bkind%5D=${filter}&page%5Bsize%5D=100`,
            );
            expect(list.status, list.text).toBe(200);
            expect(list.body.data).toContainEqual(created);
            expect(
              new Set(list.body.data.map((s: { attributes: { kind: string } }) => s.attributes.kind)),
            ).toEqual(new Set([names.kinds[kind]]));
          }

          // included: the set from its policy, the policy from its set, identical to their own reads.
          const fromPolicy = await api.get(`/policies/${policy.id}?include=policy_sets`);
          expect(fromPolicy.body.included).toEqual([created]);
          const fromSet = await api.get(`/policy-sets/${created.id}?include=policies`);
          const policyNow = (await api.get(`/policies/${policy.id}`)).body.data;
          expect(fromSet.body.included).toEqual([policyNow]);
          expect(policyNow.attributes.kind).toBe(names.kinds[kind]);
        }
      },
    );

    it('a policy default enforce path is the same neutral file name in every profile; a sent path is kept', async () => {
      // `enforce` is answered once code was uploaded (empty before, as upstream).
      const withCode = async (policy: { id: string }) => {
        const put = await api.put(`/policies/${policy.id}/upload`, 'main = rule { true }', {
          'content-type': 'application/octet-stream',
        });
        expect(put.status).toBe(204);
        return (await api.get(`/policies/${policy.id}`)).body.data.attributes;
      };
      for (const [kind, level] of [
        ['kind_a', 'soft-mandatory'],
        ['kind_b', 'advisory'],
      ] as const) {
        const name = uniqueName('p');
        const policy = await createPolicy(api, org.name, { name, kind: names.kinds[kind] });
        expect(policy.attributes.enforce).toEqual([]);
        expect((await withCode(policy)).enforce).toEqual([{ path: `${name}.policy`, mode: level }]);
      }
      const name = uniqueName('p');
      const sent = await createPolicy(api, org.name, {
        name,
        enforce: [{ path: `${name}.sentinel`, mode: 'advisory' }],
      });
      expect(sent.attributes.kind).toBe(names.kinds.kind_a);
      expect((await withCode(sent)).enforce).toEqual([{ path: `${name}.sentinel`, mode: 'advisory' }]);
    });

    it('errors about kinds point at the attribute or parameter and speak the profile names', async () => {
      const bad = await api.post(`/organizations/${org.name}/policy-sets`, {
        data: { type: 'policy-sets', attributes: { name: uniqueName('s'), kind: 'kind_c' } },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toEqual([
        {
          status: '422',
          code: 'POLICY_SETS_INVALID_KIND',
          title: 'invalid attribute',
          detail: `Kind must be ${names.kinds.kind_a} or ${names.kinds.kind_b}`,
          source: { pointer: '/data/attributes/kind' },
        },
      ]);

      const filter = await api.get(`/organizations/${org.name}/policy-sets?filter%5Bkind%5D=kind_c`);
      expect(filter.status).toBe(422);
      expect(filter.body.errors[0]).toMatchObject({
        detail: `filter[kind] must be ${names.kinds.kind_a} or ${names.kinds.kind_b}`,
        source: { parameter: 'filter[kind]' },
      });

      const query = await api.post(`/organizations/${org.name}/policies`, {
        data: { type: 'policies', attributes: { name: uniqueName('q'), kind: 'kind_b' } },
      });
      expect(query.status).toBe(422);
      expect(query.body.errors[0]).toMatchObject({
        detail: `Query can't be blank for ${names.kinds.kind_b} policies`,
        source: { pointer: '/data/attributes/query' },
      });

      // Free text a client sent is echoed as sent, never translated.
      const include = await api.get(`/organizations/${org.name}/policy-sets?include=kind_a`);
      expect(include.status).toBe(400);
      expect(include.body.errors[0].detail).toContain('kind_a');
    });
  });

  describe('agent attributes', () => {
    const post = (attributes: Record<string, unknown>) =>
      api.post(`/organizations/${org.name}/policy-sets`, {
        data: { type: 'policy-sets', attributes: { name: uniqueName('ag'), ...attributes } },
      });
    const patch = (id: string, attributes: Record<string, unknown>) =>
      api.patch(`/policy-sets/${id}`, { data: { type: 'policy-sets', attributes } });

    if (profile === 'spec') {
      it('the spec rules: tool version and overridable need the agent, the agent needs kind_a (422, nothing created)', async () => {
        const before = (await api.get(`/organizations/${org.name}/policy-sets`)).body.meta.pagination[
          'total-count'
        ];
        for (const [attributes, pointer] of [
          [{ 'policy-tool-version': '0.26.0' }, 'policy-tool-version'],
          [{ overridable: true }, 'overridable'],
          [{ kind: 'opa', 'agent-enabled': true }, 'agent-enabled'],
        ] as const) {
          const res = await post(attributes);
          expect(res.status, res.text).toBe(422);
          expect(res.body.errors[0].source).toEqual({ pointer: `/data/attributes/${pointer}` });
        }
        const after = (await api.get(`/organizations/${org.name}/policy-sets`)).body.meta.pagination[
          'total-count'
        ];
        expect(after).toBe(before);
      });

      it('a non-agent kind_a set shows overridable false and the default tool version; turning the agent off resets both', async () => {
        const plain = await post({});
        expect(plain.body.data.attributes).toMatchObject({
          overridable: false,
          'agent-enabled': false,
          'policy-tool-version': 'latest',
        });
        const agent = await post({
          'agent-enabled': true,
          'policy-tool-version': '0.26.0',
          overridable: true,
        });
        expect(agent.status, agent.text).toBe(201);
        const off = await patch(agent.body.data.id, { 'agent-enabled': false });
        expect(off.status, off.text).toBe(200);
        expect(off.body.data.attributes).toMatchObject({
          'agent-enabled': false,
          overridable: false,
          'policy-tool-version': 'latest',
        });
        const opa = await post({ kind: 'kind_b' });
        expect(opa.body.data.attributes).toMatchObject({ 'agent-enabled': false, overridable: false });
      });
    } else {
      it('upstream leniency: tool version and overridable without the agent are accepted and ignored', async () => {
        const res = await post({ 'policy-tool-version': '0.26.0', overridable: true });
        expect(res.status, res.text).toBe(201);
        expect(res.body.data.attributes).toMatchObject({
          kind: 'sentinel',
          'agent-enabled': false,
          overridable: null,
          'policy-tool-version': '',
        });
        const id = res.body.data.id as string;
        expect((await api.get(`/policy-sets/${id}`)).body.data).toEqual(res.body.data);
        // Ignored, not stored: once the agent is on, the set has the defaults.
        const on = await patch(id, { 'agent-enabled': true });
        expect(on.body.data.attributes).toMatchObject({
          overridable: false,
          'policy-tool-version': 'latest',
        });
        // On update too, against the stored set (the agent is off again).
        await patch(id, { 'agent-enabled': false });
        const ignored = await patch(id, {
          'policy-tool-version': '0.30.0',
          overridable: true,
          description: 'x',
        });
        expect(ignored.status, ignored.text).toBe(200);
        expect(ignored.body.data.attributes).toMatchObject({
          description: 'x',
          overridable: null,
          'policy-tool-version': '',
        });
      });

      it('turning the agent off answers policy-tool-version "" and overridable null, the same on every read', async () => {
        const agent = await post({
          kind: 'sentinel',
          'agent-enabled': true,
          'policy-tool-version': '0.26.0',
          overridable: true,
        });
        expect(agent.status, agent.text).toBe(201);
        expect(agent.body.data.attributes).toMatchObject({
          overridable: true,
          'policy-tool-version': '0.26.0',
        });
        const off = await patch(agent.body.data.id, { 'agent-enabled': false });
        expect(off.status, off.text).toBe(200);
        expect(off.body.data.attributes).toMatchObject({
          'agent-enabled': false,
          overridable: null,
          'policy-tool-version': '',
        });
        const list = await api.get(`/organizations/${org.name}/policy-sets?page%5Bsize%5D=100`);
        expect(list.body.data).toContainEqual(off.body.data);
      });

      it('an opa set reports agent-enabled true, and accepts it on input', async () => {
        const opa = await post({ kind: 'opa', 'agent-enabled': true });
        expect(opa.status, opa.text).toBe(201);
        expect(opa.body.data.attributes).toMatchObject({
          kind: 'opa',
          'agent-enabled': true,
          overridable: false,
        });
        const plain = await post({ kind: 'kind_b' });
        expect(plain.body.data.attributes['agent-enabled']).toBe(true);
        const patched = await patch(plain.body.data.id, { 'agent-enabled': true, overridable: true });
        expect(patched.status, patched.text).toBe(200);
        expect(patched.body.data.attributes).toMatchObject({ 'agent-enabled': true, overridable: true });
      });
    }
  });

  describe('admin organizations', () => {
    it('timeouts and the sudo flag are read under either vocabulary and shown under the profile names', async () => {
      const name = uniqueName('adm');
      expect(
        (
          await api.post('/organizations', {
            data: { type: 'organizations', attributes: { name, email: `o@${name}.example` } },
          })
        ).status,
      ).toBe(201);
      const first = await adminUpdate(t, name, {
        [foreign.applyAlias]: '3h',
        [names.planAlias]: '90m',
        [foreign.sudo]: true,
      });
      expect(first.status, first.text).toBe(200);
      const attrs = first.body.data.attributes;
      expect(attrs).toMatchObject({
        'apply-timeout': '3h',
        'plan-timeout': '90m',
        [names.applyAlias]: '3h',
        [names.planAlias]: '90m',
        [names.sudo]: true,
      });
      for (const key of [foreign.applyAlias, foreign.planAlias, foreign.sudo])
        expect(attrs).not.toHaveProperty(key);

      const shown = (await t.admin.get(`/admin/organizations/${name}`)).body.data;
      expect(shown).toEqual(first.body.data);
      const listed = await t.admin.get(`/admin/organizations?q=${name}`);
      expect(listed.body.data).toEqual([first.body.data]);

      // The same setting under two names must agree; a 422 changes nothing.
      const conflict = await adminUpdate(t, name, { 'apply-timeout': '1h', [foreign.applyAlias]: '2h' });
      expect(conflict.status).toBe(422);
      expect(conflict.body.errors[0].source).toEqual({ pointer: `/data/attributes/${foreign.applyAlias}` });
      expect((await t.admin.get(`/admin/organizations/${name}`)).body.data).toEqual(first.body.data);
    });
  });

  describe('policy checks', () => {
    it('the result hash is keyed by the profile name on show, list and override, and the report names it so', async () => {
      const workspace = await createWorkspace(api, org.name);
      const policy = await createPolicy(api, org.name, {
        name: uniqueName('soft'),
        'enforcement-level': 'soft-mandatory',
      });
      const set = await createPolicySet(
        api,
        org.name,
        {},
        { policies: [policy.id], workspaces: [workspace.id] },
      );
      const run = await createRun(api, workspace.id);
      await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(['aws_s3_bucket']) });
      const checkId = (await api.get(`/runs/${run.id}`)).body.data.relationships['policy-checks'].data[0].id;
      const lease = await claimCheck(internal, checkId);
      await internal.evaluator.CompletePolicyCheck({
        policyCheckId: checkId,
        leaseToken: lease.leaseToken,
        outcomes: [{ policySetId: set.id, policyName: policy.attributes.name as string, passed: false }],
        durationMs: 7,
        engineDetailsJson: JSON.stringify({ rules: 1 }),
      });

      const shown = (await api.get(`/policy-checks/${checkId}`)).body.data;
      expect(shown.attributes.status).toBe('soft_failed');
      expect(shown.attributes.result).toEqual({
        result: false,
        passed: 0,
        'total-failed': 1,
        'hard-failed': 0,
        'soft-failed': 1,
        'advisory-failed': 0,
        'duration-ms': 7,
        duration: 7,
        [names.engineKey]: { rules: 1 },
      });
      // The standard text report names the framework the same way.
      const output = await api.get(`/policy-checks/${checkId}/output`);
      expect(output.text.split('\n')[0]).toBe(`${names.reportFramework} Result: false`);
      expect(output.text).toContain('1 policies evaluated.');
      const listed = await api.get(`/runs/${run.id}/policy-checks?include=run`);
      expect(listed.body.data).toEqual([shown]);
      const overridden = await api.post(`/policy-checks/${checkId}/actions/override`);
      expect(overridden.status, overridden.text).toBe(200);
      expect(overridden.body.data.attributes.result).toEqual(shown.attributes.result);
    });
  });

  describe('service discovery', () => {
    it('GET /.well-known/terraform.json answers the API location without a token, as application/json', async () => {
      for (const headers of [{}, { authorization: 'Bearer ph.not-a-token' }] as Array<
        Record<string, string>
      >) {
        const res = await fetch(`${t.system.baseUrl}/.well-known/terraform.json`, { headers });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
        expect(await res.json()).toEqual({
          'tfe.v2': '/api/v2/',
          'tfe.v2.1': '/api/v2/',
          'tfe.v2.2': '/api/v2/',
        });
      }
      // Only at the root: under the API prefix it is an unknown route like any other.
      const prefixed = await fetch(`${t.system.baseUrl}/api/v2/.well-known/terraform.json`);
      expect(prefixed.status).toBe(401);
    });
  });
});

describe('API_VOCABULARY is validated at start', () => {
  const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
  const start = (entry: string, env: Record<string, string>) =>
    spawnSync(process.execPath, ['--conditions=@policyhub/source', '--import', 'tsx', entry], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });

  it.each([
    ['npm start', 'embedded/src/main.ts', {}],
    ['the gateway', 'services/gateway/src/main.ts', { INTERNAL_SIGNING_KEYS: `k1:${'s'.repeat(40)}` }],
  ])('%s exits 2 with one clear line for an unknown profile', (_label, entry, env) => {
    const res = start(entry, {
      ...env,
      API_VOCABULARY: 'upstream',
      PORT: '0',
      RUNS_GRPC_ADDR: '127.0.0.1:0',
    });
    expect(res.status, res.stderr).toBe(2);
    expect(res.stderr).toContain('API_VOCABULARY: must be spec or tfe (got "upstream")');
  });
});
