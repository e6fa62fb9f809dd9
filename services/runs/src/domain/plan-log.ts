import { PLAN_STATUS } from './plan-status.js';

/** What a plan's log tells (a plan row has it). */
export interface PlanLogFacts {
  id: string;
  run_id: string;
  status: string;
  status_timestamps: Record<string, string>;
  has_changes: boolean;
  resource_additions: number;
  resource_changes: number;
  resource_destructions: number;
  resource_imports: number;
  size_bytes: string | null;
}

/**
 * A plan's log as PolicyHub can honestly tell it: it runs no Terraform, so there is no Terraform
 * output, only what happened to the plan here: when it waited, when its JSON document arrived
 * (and its size), or how it ended without one, and the resource counts taken from the document,
 * in Terraform's summary words ("Plan: 1 to add, 0 to change, 0 to destroy.").
 */
export function planLog(plan: PlanLogFacts): string {
  const at = (status: string) => plan.status_timestamps[`${status}-at`] ?? '-';
  const lines = [
    `PolicyHub plan ${plan.id} of run ${plan.run_id}`,
    'PolicyHub runs no Terraform: this log records what happened to the plan here.',
    '',
    `${at('pending')}  pending: waiting for the plan JSON (terraform show -json)`,
  ];
  switch (plan.status) {
    case PLAN_STATUS.finished: {
      const size = plan.size_bytes === null ? '' : ` (${plan.size_bytes} bytes)`;
      lines.push(`${at('finished')}  finished: received the plan JSON${size}`, '', summary(plan));
      break;
    }
    case PLAN_STATUS.errored:
      lines.push(`${at('errored')}  errored: the run ended in an error before the plan JSON arrived`);
      break;
    case PLAN_STATUS.canceled:
      lines.push(`${at('canceled')}  canceled: the run ended before the plan JSON arrived`);
      break;
  }
  return `${lines.join('\n')}\n`;
}

function summary(plan: PlanLogFacts): string {
  if (!plan.has_changes) return 'No changes. Your infrastructure matches the configuration.';
  const imports = plan.resource_imports > 0 ? `${plan.resource_imports} to import, ` : '';
  return `Plan: ${imports}${plan.resource_additions} to add, ${plan.resource_changes} to change, ${plan.resource_destructions} to destroy.`;
}
