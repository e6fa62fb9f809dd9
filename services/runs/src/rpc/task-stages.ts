import {
  evaluationPolicyKind,
  policyEvaluationStatus,
  type runsV1,
  taskStageStatus,
  toTimestamp,
} from '@policyhub/contracts';
import { type Handlers, type Principal, hasPermission } from '@policyhub/grpc-runtime';
import type { PolicyEvaluationRow, PolicySetOutcomeRow, TaskStageRow } from '../db/task-stage-repository.js';
import { OVERRIDE_POLICY_CHECKS } from '../domain/rules.js';
import { isStageOverridable, type ResultCount } from '../domain/task-stages.js';
import type { TaskStageUseCases } from '../use-cases/task-stages.js';

export function taskStageHandlers(stages: TaskStageUseCases): Handlers<runsV1.TaskStagesHandlers> {
  return {
    async ListRunTaskStages(req, { principal }) {
      const res = await stages.listStages(principal, req.runId, req.page);
      return { taskStages: res.stages.map((s) => toTaskStage(s, principal)), page: res.page };
    },
    async GetTaskStage(req, { principal }) {
      return { taskStage: toTaskStage(await stages.getStage(principal, req.id), principal) };
    },
    async BatchGetTaskStages(req, { principal }) {
      return {
        taskStages: (await stages.batchGetStages(principal, req.ids)).map((s) => toTaskStage(s, principal)),
      };
    },
    async ListTaskStagePolicyEvaluations(req, { principal }) {
      const res = await stages.listEvaluations(principal, req.taskStageId, req.page);
      return { policyEvaluations: res.evaluations.map(toPolicyEvaluation), page: res.page };
    },
    async GetPolicyEvaluation(req, { principal }) {
      return { policyEvaluation: toPolicyEvaluation(await stages.getEvaluation(principal, req.id)) };
    },
    async BatchGetPolicyEvaluations(req, { principal }) {
      return {
        policyEvaluations: (await stages.batchGetEvaluations(principal, req.ids)).map(toPolicyEvaluation),
      };
    },
    async ListPolicySetOutcomes(req, { principal }) {
      const filters = req.filters.map((f) => ({
        status: f.status ?? undefined,
        enforcementLevel: f.enforcementLevel ?? undefined,
      }));
      const res = await stages.listOutcomes(principal, req.policyEvaluationId, filters, req.page);
      return { policySetOutcomes: res.outcomes.map(toPolicySetOutcome), page: res.page };
    },
    async GetPolicySetOutcome(req, { principal }) {
      return { policySetOutcome: toPolicySetOutcome(await stages.getOutcome(principal, req.id)) };
    },
    async OverrideTaskStage(req, { principal }) {
      return { taskStage: toTaskStage(await stages.override(principal, req.id, req.comment), principal) };
    },
  };
}

const timestamps = (t: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(t)
      .sort(([, a], [, b]) => Date.parse(a) - Date.parse(b))
      .map(([status, at]) => [status, toTimestamp(at)]),
  );

const toCount = (c: ResultCount): runsV1.PolicyResultCount => ({
  advisoryFailed: c.advisory_failed,
  mandatoryFailed: c.mandatory_failed,
  passed: c.passed,
  errored: c.errored,
});

export const toTaskStage = (s: TaskStageRow, principal: Principal | undefined): runsV1.TaskStage => ({
  id: s.id,
  runId: s.run_id,
  organization: s.organization,
  workspaceId: s.workspace_id,
  stage: s.stage,
  status: taskStageStatus.fromKnownWord(s.status),
  statusTimestamps: timestamps(s.status_timestamps),
  policyEvaluationIds: s.policy_evaluation_ids,
  isOverridable: isStageOverridable(s.status, s.plan_only),
  canOverridePolicy: hasPermission(principal, s.organization, OVERRIDE_POLICY_CHECKS, s.organization_id),
  createdAt: toTimestamp(s.created_at),
  updatedAt: toTimestamp(s.updated_at),
});

export const toPolicyEvaluation = (e: PolicyEvaluationRow): runsV1.PolicyEvaluation => ({
  id: e.id,
  taskStageId: e.task_stage_id,
  runId: e.run_id,
  policyKind: evaluationPolicyKind.fromKnownWord(e.policy_kind),
  status: policyEvaluationStatus.fromKnownWord(e.status),
  statusTimestamps: timestamps(e.status_timestamps),
  resultCount: e.result_count ? toCount(e.result_count) : null,
  createdAt: toTimestamp(e.created_at),
  updatedAt: toTimestamp(e.updated_at),
});

export const toPolicySetOutcome = (o: PolicySetOutcomeRow): runsV1.PolicySetOutcome => ({
  id: o.id,
  policyEvaluationId: o.policy_evaluation_id,
  policySetId: o.policy_set_id,
  policySetName: o.policy_set_name,
  policySetDescription: o.policy_set_description ?? undefined,
  overridable: o.overridable ?? undefined,
  error: o.error ?? undefined,
  outcomes: o.outcomes.map((p) => ({
    policyName: p.policy_name,
    enforcementLevel: p.enforcement_level,
    query: p.query ?? undefined,
    status: p.status,
    description: p.description ?? undefined,
    output: p.output.map((line) => line.print),
  })),
  resultCount: toCount(o.result_count),
});
