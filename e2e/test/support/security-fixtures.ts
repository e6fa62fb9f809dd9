import { expect } from 'vitest';
import { policyArchive } from './archives.js';
import { createPolicy, createPolicySet, createProject, createWorkspace } from './fixtures.js';
import {
  claimCheck,
  createRun,
  guardedWorkspace,
  type InternalRunsApi,
  internalRunsApi,
  planJson,
} from './runs.js';
import type { OrgContext } from './security-world.js';
import type { TestSystem } from './system.js';

const internalApis = new WeakMap<TestSystem, InternalRunsApi>();

/** The runs service's internal gRPC API (executor, evaluator), one per system. */
function internalApiOf(t: TestSystem): InternalRunsApi {
  let api = internalApis.get(t);
  if (!api) {
    api = internalRunsApi(t);
    internalApis.set(t, api);
  }
  return api;
}

export function closeInternalApi(t: TestSystem): void {
  internalApis.get(t)?.close();
  internalApis.delete(t);
}

/**
 * Real resources in one organization, created by its owner over HTTP (and, for runs and checks,
 * through the internal executor/evaluator API, as a real executor would). `fresh*` make a new
 * one per call (for calls that delete or change it); `shared*` make one and reuse it (reads).
 */
export class SecurityFixtures {
  private readonly memo = new Map<string, Promise<unknown>>();

  constructor(
    private readonly t: TestSystem,
    private readonly org: OrgContext,
  ) {}

  private get api() {
    return this.org.owner.api;
  }

  private shared<T>(key: string, make: () => Promise<T>): Promise<T> {
    let value = this.memo.get(key) as Promise<T> | undefined;
    if (!value) {
      value = make();
      this.memo.set(key, value);
    }
    return value;
  }

  freshWorkspace = () => createWorkspace(this.api, this.org.name, { name: this.org.names('ws') });
  freshProject = () => createProject(this.api, this.org.name, this.org.names('prj'));
  freshPolicy = () => createPolicy(this.api, this.org.name, { name: this.org.names('pol') });
  freshPolicySet = () => createPolicySet(this.api, this.org.name, { name: this.org.names('set') });

  /** A parameter of a fresh set: its id and its set's id. */
  freshParameter = async () => {
    const set = await this.freshPolicySet();
    const res = await this.api.post(`/policy-sets/${set.id}/parameters`, {
      data: {
        type: 'vars',
        attributes: { key: this.org.names('param'), value: 'v', category: 'policy-set' },
      },
    });
    expect(res.status, res.text).toBe(201);
    return { id: res.body.data.id as string, setId: set.id };
  };

  /** A pending version of a fresh set: its id and upload URL. */
  freshVersion = async () => {
    const set = await this.freshPolicySet();
    const res = await this.api.post(`/policy-sets/${set.id}/versions`);
    expect(res.status, res.text).toBe(201);
    return { id: res.body.data.id as string, upload: res.body.data.links.upload as string, setId: set.id };
  };

  /** A staged version (auto-promote off, uploaded and ready) of a fresh set: its id. */
  freshStagedVersion = async () => {
    const set = await this.freshPolicySet();
    const res = await this.api.post(`/policy-sets/${set.id}/versions`, {
      data: { type: 'policy-set-versions', attributes: { 'auto-promote': false } },
    });
    expect(res.status, res.text).toBe(201);
    const put = await this.t.anonymous.request('PUT', res.body.data.links.upload, await this.archive(), {
      'content-type': 'application/octet-stream',
    });
    expect(put.status, put.text).toBe(200);
    return { id: res.body.data.id as string, setId: set.id };
  };

  freshRun = async () => createRun(this.api, (await this.sharedWorkspace()).id);

  freshTeam = async () => {
    const res = await this.api.post(`/organizations/${this.org.name}/teams`, {
      // Visible to every member (a `secret` team is hidden from members outside it).
      data: {
        type: 'teams',
        attributes: { name: this.org.names('team'), 'organization-access': {}, visibility: 'organization' },
      },
    });
    expect(res.status, res.text).toBe(201);
    return { id: res.body.data.id as string };
  };

  /** A run whose check soft-failed: the one state an override accepts. */
  freshSoftFailedCheck = async () => {
    const internal = internalApiOf(this.t);
    const name = this.org.names('pol');
    const { workspace, set } = await guardedWorkspace(this.api, this.org.name, [
      { name, level: 'soft-mandatory' },
    ]);
    const run = await createRun(this.api, workspace.id);
    await internal.executor.ReportPlanFinished({ runId: run.id, planJson: planJson(['aws_s3_bucket']) });
    const shown = await this.api.get(`/runs/${run.id}`);
    const checkId = shown.body.data.relationships['policy-checks'].data[0].id as string;
    const lease = await claimCheck(internal, checkId);
    await internal.evaluator.CompletePolicyCheck({
      policyCheckId: checkId,
      leaseToken: lease.leaseToken,
      outcomes: [{ policySetId: set.id, policyName: name, passed: false }],
      durationMs: 1,
      engineDetailsJson: '{}',
      report: 'kind_a Result: false\n\n1 policies evaluated.\n',
    });
    return { checkId, runId: run.id };
  };

  /**
   * A run whose task stage awaits an override: a kind_b set (overridable) whose mandatory policy
   * the evaluation, reported through the internal evaluator API, failed.
   */
  freshAwaitingStage = async () => {
    const internal = internalApiOf(this.t);
    const workspace = await createWorkspace(this.api, this.org.name);
    const policy = await createPolicy(this.api, this.org.name, {
      name: this.org.names('pol'),
      kind: 'kind_b',
      query: 'data.terraform.deny',
      'enforcement-level': 'mandatory',
    });
    const set = await createPolicySet(
      this.api,
      this.org.name,
      { kind: 'kind_b', overridable: true },
      { policies: [policy.id], workspaces: [workspace.id] },
    );
    const run = await createRun(this.api, workspace.id);
    const planned = await internal.executor.ReportPlanFinished({
      runId: run.id,
      planJson: planJson(['aws_s3_bucket']),
    });
    const stageId = planned.run!.taskStageIds[0]!;
    const stage = await this.api.get(`/task-stages/${stageId}`);
    const evaluationId = stage.body.data.relationships['policy-evaluations'].data[0].id as string;
    const lease = await claimCheck(internal, evaluationId);
    await internal.evaluator.CompletePolicyCheck({
      policyCheckId: evaluationId,
      leaseToken: lease.leaseToken,
      outcomes: [
        {
          policySetId: set.id,
          policyName: policy.attributes.name as string,
          passed: false,
          result: 'EVALUATION_POLICY_RESULT_FAILED',
          output: ['aws_s3_bucket.r0 is not allowed'],
        },
      ],
    });
    const outcomes = await this.api.get(`/policy-evaluations/${evaluationId}/policy-set-outcomes`);
    expect(outcomes.status, outcomes.text).toBe(200);
    return { stageId, runId: run.id, evaluationId, outcomeId: outcomes.body.data[0].id as string };
  };

  archive = () => policyArchive();

  /** A pending configuration version (no run is queued by its upload): its id and upload URL. */
  freshConfigurationVersion = async () => {
    const ws = await this.sharedWorkspace();
    const res = await this.api.post(`/workspaces/${ws.id}/configuration-versions`, {
      data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
    });
    expect(res.status, res.text).toBe(201);
    return {
      id: res.body.data.id as string,
      upload: res.body.data.attributes['upload-url'] as string,
      workspaceId: ws.id,
    };
  };

  /** The plan of a fresh pending run (its JSON not yet uploaded). */
  freshPendingPlan = async () => {
    const run = await this.freshRun();
    return { id: (run.relationships.plan as { data: { id: string } }).data.id, runId: run.id };
  };

  sharedWorkspace = () => this.shared('workspace', this.freshWorkspace);
  sharedProject = () => this.shared('project', this.freshProject);
  sharedPolicy = () =>
    this.shared('policy', async () => {
      const policy = await this.freshPolicy();
      const upload = await this.api.put(
        `/policies/${policy.id}/upload`,
        Buffer.from('main = rule { true }\n'),
        {
          'content-type': 'application/octet-stream',
        },
      );
      expect(upload.status, upload.text).toBe(204);
      return policy;
    });
  sharedPolicySet = () => this.shared('policy-set', this.freshPolicySet);
  sharedVersion = () => this.shared('version', this.freshVersion);
  sharedParameter = () => this.shared('parameter', this.freshParameter);
  sharedRun = () => this.shared('run', this.freshRun);
  sharedTeam = () => this.shared('team', this.freshTeam);
  sharedCheck = () => this.shared('check', this.freshSoftFailedCheck);
  sharedStage = () => this.shared('stage', this.freshAwaitingStage);
  sharedPendingPlan = () => this.shared('pending-plan', this.freshPendingPlan);

  /** An uploaded configuration version (downloadable). */
  sharedConfigurationVersion = () =>
    this.shared('configuration-version', async () => {
      const cv = await this.freshConfigurationVersion();
      const put = await this.t.anonymous.request('PUT', cv.upload, await this.archive(), {
        'content-type': 'application/octet-stream',
      });
      expect(put.status, put.text).toBe(200);
      return cv;
    });

  /** The plan of the shared checked run: finished, with its JSON stored. */
  sharedFinishedPlan = () =>
    this.shared('finished-plan', async () => {
      const { runId } = await this.sharedCheck();
      const run = await this.api.get(`/runs/${runId}`);
      expect(run.status, run.text).toBe(200);
      return { id: run.body.data.relationships.plan.data.id as string, runId };
    });

  /** The capability token of the shared finished plan's log URL (handed to the owner). */
  sharedPlanLogToken = () =>
    this.shared('plan-log-token', async () => {
      const plan = await this.sharedFinishedPlan();
      const res = await this.api.get(`/plans/${plan.id}`);
      expect(res.status, res.text).toBe(200);
      return new URL(res.body.data.attributes['log-read-url'] as string).pathname.split('/').pop()!;
    });

  sharedComment = () =>
    this.shared('comment', async () => {
      const run = await this.sharedRun();
      const res = await this.api.post(`/runs/${run.id}/comments`, {
        data: { type: 'comments', attributes: { body: 'looks good' } },
      });
      expect(res.status, res.text).toBe(201);
      return { id: res.body.data.id as string, runId: run.id };
    });

  sharedRunEvent = () =>
    this.shared('run-event', async () => {
      const run = await this.sharedRun();
      const res = await this.api.get(`/runs/${run.id}/run-events`);
      expect(res.status, res.text).toBe(200);
      return { id: res.body.data[0].id as string };
    });
}
