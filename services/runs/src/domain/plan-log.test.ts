import { describe, expect, it } from 'vitest';
import { type PlanLogFacts, planLog } from './plan-log.js';

const plan = (fields: Partial<PlanLogFacts>): PlanLogFacts => ({
  id: 'plan-1',
  run_id: 'run-1',
  status: 'pending',
  status_timestamps: { 'pending-at': '2026-01-01T00:00:00.000Z' },
  has_changes: false,
  resource_additions: 0,
  resource_changes: 0,
  resource_destructions: 0,
  resource_imports: 0,
  size_bytes: null,
  ...fields,
});

describe('plan log', () => {
  it("tells a finished plan's arrival and counts in Terraform's summary words", () => {
    const log = planLog(
      plan({
        status: 'finished',
        status_timestamps: {
          'pending-at': '2026-01-01T00:00:00.000Z',
          'finished-at': '2026-01-01T00:00:05.000Z',
        },
        has_changes: true,
        resource_additions: 1,
        resource_changes: 2,
        resource_destructions: 3,
        resource_imports: 4,
        size_bytes: '1234',
      }),
    );
    expect(log).toContain('2026-01-01T00:00:05.000Z  finished: received the plan JSON (1234 bytes)');
    expect(log).toContain('Plan: 4 to import, 1 to add, 2 to change, 3 to destroy.');
  });

  it('says so when nothing changes, and tells a pending or errored plan without counts', () => {
    expect(planLog(plan({ status: 'finished', size_bytes: '2' }))).toContain('No changes.');
    const pending = planLog(plan({}));
    expect(pending).toContain('2026-01-01T00:00:00.000Z  pending: waiting for the plan JSON');
    expect(pending).not.toMatch(/Plan:|No changes/);
    expect(planLog(plan({ status: 'errored' }))).toContain('errored: the run ended in an error');
  });
});
