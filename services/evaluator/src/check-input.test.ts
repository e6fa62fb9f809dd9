import type { runsV1 } from '@policyhub/contracts';
import { describe, expect, it } from 'vitest';
import { runFacts } from './check-input.js';

const input = (run: Partial<runsV1.EvaluationRun__Output>): runsV1.GetPolicyCheckInputResponse__Output =>
  ({
    policyCheckId: 'poleval-1',
    runId: 'run-1',
    organization: 'acme',
    workspaceId: 'ws-1',
    policySets: [],
    plan: null,
    run: { createdAt: { seconds: '1767225600', nanos: 0 }, message: 'ci', planOnly: true, ...run },
  }) as unknown as runsV1.GetPolicyCheckInputResponse__Output;

describe('the run facts engines expose (input.run, tfrun)', () => {
  it('carry the workspace name when runs sends it, and leave it out otherwise', () => {
    expect(runFacts(input({ workspaceName: 'prod' }))).toEqual({
      id: 'run-1',
      createdAt: '2026-01-01T00:00:00.000Z',
      message: 'ci',
      speculative: true,
      organization: { name: 'acme' },
      workspace: { id: 'ws-1', name: 'prod' },
      isDestroy: undefined,
    });
    expect(runFacts(input({})).workspace).toEqual({ id: 'ws-1', name: undefined });
  });

  it('carry whether the run is a destroy run when runs says, and leave it out otherwise', () => {
    expect(runFacts(input({ isDestroy: true })).isDestroy).toBe(true);
    expect(runFacts(input({ isDestroy: false })).isDestroy).toBe(false);
    expect(runFacts(input({})).isDestroy).toBeUndefined();
  });
});
