import { contracts } from '@policyhub/contracts';
import { createClient, workerCredential } from '@policyhub/grpc-runtime';
import { waitFor } from '@policyhub/testing';
import { expect } from 'vitest';
import type { ApiClient } from './api.js';
import { createPolicy, createPolicySet, createWorkspace } from './fixtures.js';
import type { TestSystem } from './system.js';

/**
 * Helpers for the runs, comments, policy-check and evaluator suites. Executors and evaluators
 * are not HTTP clients: they speak the runs service's internal gRPC API, as a real one would.
 */
export function internalRunsApi(t: TestSystem) {
  const address = t.system.services.runs!.address;
  const v1 = contracts().policyhub.runs.v1;
  const executor = createClient(v1.RunExecutor, address, workerCredential(t.system.workerTokens.executor));
  const evaluator = createClient(
    v1.PolicyEvaluator,
    address,
    workerCredential(t.system.workerTokens.evaluator),
  );
  return {
    address,
    /** The credential an evaluator process presents (EVALUATOR_TOKEN). */
    evaluatorToken: t.system.workerTokens.evaluator,
    executor,
    evaluator,
    close() {
      executor.close();
      evaluator.close();
    },
  };
}
export type InternalRunsApi = ReturnType<typeof internalRunsApi>;

export async function createRun(
  api: ApiClient,
  workspaceId: string,
  attributes: Record<string, unknown> = {},
) {
  const res = await api.post('/runs', {
    data: {
      type: 'runs',
      attributes,
      relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } },
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as {
    id: string;
    attributes: Record<string, unknown>;
    relationships: Record<string, unknown>;
  };
}

/** A plan JSON (the engine's format) creating one resource of each given type. */
export const planJson = (resourceTypes: string[]) =>
  Buffer.from(
    JSON.stringify({
      format_version: '1.2',
      resource_changes: resourceTypes.map((type, i) => ({
        address: `${type}.r${i}`,
        mode: 'managed',
        type,
        name: `r${i}`,
        change: { actions: ['create'], before: null, after: {} },
      })),
    }),
  );

export type Level = 'advisory' | 'soft-mandatory' | 'hard-mandatory';

/**
 * A workspace covered by one kind_a policy set holding these policies. `code` is uploaded as
 * the policy source (the test engine reads it as a list of forbidden resource types).
 */
export async function guardedWorkspace(
  api: ApiClient,
  org: string,
  policies: Array<{ name: string; level: Level; code?: string }>,
) {
  const workspace = await createWorkspace(api, org);
  const created = [];
  for (const p of policies) {
    const policy = await createPolicy(api, org, { name: p.name, 'enforcement-level': p.level });
    if (p.code !== undefined) {
      const upload = await api.put(`/policies/${policy.id}/upload`, Buffer.from(p.code), {
        'content-type': 'application/octet-stream',
      });
      expect(upload.status, upload.text).toBeLessThan(300);
    }
    created.push(policy);
  }
  const set = await createPolicySet(
    api,
    org,
    {},
    { policies: created.map((p) => p.id), workspaces: [workspace.id] },
  );
  return { workspace, set, policies: created };
}

/** Claims checks (or policy evaluations) until `checkId` is handed out (fails if it never is). */
export async function claimCheck(internal: InternalRunsApi, checkId: string, leaseSeconds = 60) {
  for (let i = 0; i < 20; i++) {
    const res = await internal.evaluator.ClaimPolicyCheck({
      evaluatorId: 'e2e',
      leaseSeconds,
      includePolicyEvaluations: checkId.startsWith('poleval-'),
    });
    if (!res.claimed) break;
    if (res.lease!.policyCheckId === checkId) return res.lease!;
  }
  throw new Error(`policy check ${checkId} was not claimable`);
}

/**
 * Reports a plan of any size through the executor's client stream (ReportPlanFinishedStream):
 * a unary ReportPlanFinished is capped at 8 MiB like every gRPC message.
 */
export function reportPlanStreamed(internal: InternalRunsApi, runId: string, plan: Buffer) {
  return new Promise<{ policyCheckIds: string[] }>((resolve, reject) => {
    const call = internal.executor.raw.ReportPlanFinishedStream(internal.executor.metadata(), (err, res) =>
      err ? reject(err) : resolve(res!.run!),
    );
    call.write({ runId });
    for (let offset = 0; offset < plan.length; offset += 1024 * 1024) {
      call.write({ data: plan.subarray(offset, offset + 1024 * 1024) });
    }
    call.end();
  });
}

/** A plan JSON over `minBytes`: the resources are padded with a large attribute. */
export function largePlanJson(resourceTypes: string[], minBytes: number): Buffer {
  const padding = 'x'.repeat(64 * 1024);
  const count = Math.ceil(minBytes / padding.length) + 1;
  return Buffer.from(
    JSON.stringify({
      format_version: '1.2',
      terraform_version: '1.9.5',
      resource_changes: [
        ...resourceTypes.map((type, i) => ({
          address: `${type}.r${i}`,
          mode: 'managed',
          type,
          name: `r${i}`,
          change: { actions: ['create'], before: null, after: {} },
        })),
        ...Array.from({ length: count }, (_, i) => ({
          address: `terraform_data.pad${i}`,
          mode: 'managed',
          type: 'terraform_data',
          name: `pad${i}`,
          change: { actions: ['no-op'], before: { input: padding }, after: { input: padding } },
        })),
      ],
    }),
  );
}

/**
 * A workspace covered by a versioned set whose current version is this tar.gz (uploaded through
 * its upload URL, as a client does); `policiesPath` is set on the set when given (see the
 * caller's note: the API takes policies-path only with a VCS repository), before the version is
 * created: storage checks the archive's layout, and reads what it declares, in that directory.
 */
export async function archivedWorkspace(
  api: ApiClient,
  org: string,
  archive: Buffer,
  options: { policiesPath?: string; setPoliciesPath?: (setId: string, path: string) => Promise<void> } = {},
) {
  const workspace = await createWorkspace(api, org);
  const set = await createPolicySet(api, org, {}, { workspaces: [workspace.id] });
  if (options.policiesPath !== undefined) await options.setPoliciesPath!(set.id, options.policiesPath);
  const version = await api.post(`/policy-sets/${set.id}/versions`);
  expect(version.status, version.text).toBe(201);
  const put = await fetch(version.body.data.links.upload as string, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(archive),
  });
  expect(put.status, await put.text()).toBeLessThan(300);
  await waitFor(
    async () =>
      (await api.get(`/policy-set-versions/${version.body.data.id}`)).body.data.attributes.status === 'ready',
    20_000,
    50,
  );
  return { workspace, set };
}
