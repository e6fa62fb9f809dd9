// The enum tables of proto/policyhub/runs (see ../enum-mapping.ts). One exported mapping per enum,
// named after the enum in lowerCamelCase (e.g. `export const policySetKind = enumMapping(...)`).
import { type EnumWords, enumMapping } from '../enum-mapping.js';
import type { runsV1 } from '../generated/index.js';

export const runStatus = enumMapping('RunStatus', {
  RUN_STATUS_PENDING: 'pending',
  RUN_STATUS_PLANNED: 'planned',
  RUN_STATUS_POLICY_CHECKING: 'policy_checking',
  RUN_STATUS_POLICY_CHECKED: 'policy_checked',
  RUN_STATUS_POLICY_OVERRIDE: 'policy_override',
  RUN_STATUS_POLICY_SOFT_FAILED: 'policy_soft_failed',
  RUN_STATUS_ERRORED: 'errored',
  RUN_STATUS_CANCELED: 'canceled',
  RUN_STATUS_POST_PLAN_RUNNING: 'post_plan_running',
  RUN_STATUS_POST_PLAN_AWAITING_DECISION: 'post_plan_awaiting_decision',
  RUN_STATUS_POST_PLAN_COMPLETED: 'post_plan_completed',
  RUN_STATUS_DISCARDED: 'discarded',
} as const satisfies EnumWords<runsV1.RunStatus__Output>);

export const runEventAction = enumMapping('RunEventAction', {
  RUN_EVENT_ACTION_CREATED: 'created',
  RUN_EVENT_ACTION_COMMENTED: 'commented',
  RUN_EVENT_ACTION_POLICY_OVERRIDDEN: 'policy-overridden',
  RUN_EVENT_ACTION_CANCELED: 'canceled',
  RUN_EVENT_ACTION_ERRORED: 'errored',
  RUN_EVENT_ACTION_DISCARDED: 'discarded',
} as const satisfies EnumWords<runsV1.RunEventAction__Output>);

export const planStatus = enumMapping('PlanStatus', {
  PLAN_STATUS_PENDING: 'pending',
  PLAN_STATUS_FINISHED: 'finished',
  PLAN_STATUS_ERRORED: 'errored',
  PLAN_STATUS_CANCELED: 'canceled',
} as const satisfies EnumWords<runsV1.PlanStatus__Output>);

export const configurationVersionStatus = enumMapping('ConfigurationVersionStatus', {
  CONFIGURATION_VERSION_STATUS_PENDING: 'pending',
  CONFIGURATION_VERSION_STATUS_UPLOADED: 'uploaded',
  CONFIGURATION_VERSION_STATUS_ERRORED: 'errored',
} as const satisfies EnumWords<runsV1.ConfigurationVersionStatus__Output>);

export const configurationVersionSource = enumMapping('ConfigurationVersionSource', {
  CONFIGURATION_VERSION_SOURCE_TFE_API: 'tfe-api',
} as const satisfies EnumWords<runsV1.ConfigurationVersionSource__Output>);

export const policyCheckStatus = enumMapping('PolicyCheckStatus', {
  POLICY_CHECK_STATUS_QUEUED: 'queued',
  POLICY_CHECK_STATUS_PASSED: 'passed',
  POLICY_CHECK_STATUS_SOFT_FAILED: 'soft_failed',
  POLICY_CHECK_STATUS_HARD_FAILED: 'hard_failed',
  POLICY_CHECK_STATUS_OVERRIDDEN: 'overridden',
  POLICY_CHECK_STATUS_ERRORED: 'errored',
  POLICY_CHECK_STATUS_CANCELED: 'canceled',
} as const satisfies EnumWords<runsV1.PolicyCheckStatus__Output>);

export const policyCheckScope = enumMapping('PolicyCheckScope', {
  POLICY_CHECK_SCOPE_ORGANIZATION: 'organization',
} as const satisfies EnumWords<runsV1.PolicyCheckScope__Output>);

export const evaluationPolicyKind = enumMapping('EvaluationPolicyKind', {
  EVALUATION_POLICY_KIND_A: 'kind_a',
  EVALUATION_POLICY_KIND_B: 'kind_b',
} as const satisfies EnumWords<runsV1.EvaluationPolicyKind__Output>);

export const evaluationEnforcementLevel = enumMapping('EvaluationEnforcementLevel', {
  EVALUATION_ENFORCEMENT_LEVEL_ADVISORY: 'advisory',
  EVALUATION_ENFORCEMENT_LEVEL_SOFT_MANDATORY: 'soft-mandatory',
  EVALUATION_ENFORCEMENT_LEVEL_HARD_MANDATORY: 'hard-mandatory',
  EVALUATION_ENFORCEMENT_LEVEL_MANDATORY: 'mandatory',
} as const satisfies EnumWords<runsV1.EvaluationEnforcementLevel__Output>);

export const evaluationPolicyResult = enumMapping('EvaluationPolicyResult', {
  EVALUATION_POLICY_RESULT_PASSED: 'passed',
  EVALUATION_POLICY_RESULT_FAILED: 'failed',
  EVALUATION_POLICY_RESULT_ERRORED: 'errored',
} as const satisfies EnumWords<runsV1.EvaluationPolicyResult__Output>);

export const taskStageStatus = enumMapping('TaskStageStatus', {
  TASK_STAGE_STATUS_PENDING: 'pending',
  TASK_STAGE_STATUS_RUNNING: 'running',
  TASK_STAGE_STATUS_PASSED: 'passed',
  TASK_STAGE_STATUS_FAILED: 'failed',
  TASK_STAGE_STATUS_AWAITING_OVERRIDE: 'awaiting_override',
  TASK_STAGE_STATUS_ERRORED: 'errored',
  TASK_STAGE_STATUS_CANCELED: 'canceled',
} as const satisfies EnumWords<runsV1.TaskStageStatus__Output>);

export const policyEvaluationStatus = enumMapping('PolicyEvaluationStatus', {
  POLICY_EVALUATION_STATUS_PENDING: 'pending',
  POLICY_EVALUATION_STATUS_QUEUED: 'queued',
  POLICY_EVALUATION_STATUS_RUNNING: 'running',
  POLICY_EVALUATION_STATUS_PASSED: 'passed',
  POLICY_EVALUATION_STATUS_FAILED: 'failed',
  POLICY_EVALUATION_STATUS_OVERRIDDEN: 'overridden',
  POLICY_EVALUATION_STATUS_ERRORED: 'errored',
  POLICY_EVALUATION_STATUS_CANCELED: 'canceled',
} as const satisfies EnumWords<runsV1.PolicyEvaluationStatus__Output>);
