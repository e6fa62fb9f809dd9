import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { runsV1 } from '@policyhub/contracts';
import { RUN_FACTS } from '../../../test/support/run-facts.js';
import { runFacts } from '../../check-input.js';
import { writeInputDocument } from './input-document.js';

const dir = mkdtempSync(join(tmpdir(), 'opa-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("OPA's input document", () => {
  it("is upstream's {plan, run}: the plan JSON as reported, the run with what PolicyHub knows", async () => {
    const plan =
      '{"format_version":"1.2","terraform_version":"1.9.5","resource_changes":[{"address":"a.b"}]}\n';
    writeFileSync(join(dir, 'plan.json'), plan);
    const file = join(dir, 'input.json');
    await writeInputDocument(
      join(dir, 'plan.json'),
      { ...RUN_FACTS, workspace: { id: 'ws-1', name: 'prod' }, isDestroy: false },
      file,
    );
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      plan: JSON.parse(plan),
      run: {
        id: 'run-1',
        created_at: '2026-01-01T00:00:00.000Z',
        message: 'ci',
        speculative: true,
        is_destroy: false,
        organization: { name: 'acme' },
        workspace: { id: 'ws-1', name: 'prod' },
      },
    });
  });

  it("carries the run's is_destroy as runs sends it in the check's input", async () => {
    const fromRuns = (run: Partial<runsV1.EvaluationRun__Output>) =>
      ({
        policyCheckId: 'poleval-1',
        runId: 'run-1',
        organization: 'acme',
        workspaceId: 'ws-1',
        policySets: [],
        plan: null,
        run: { createdAt: { seconds: '1767225600', nanos: 0 }, message: 'ci', planOnly: false, ...run },
      }) as unknown as runsV1.GetPolicyCheckInputResponse__Output;
    const runOf = async (run: Partial<runsV1.EvaluationRun__Output>) => {
      const file = join(dir, `input-destroy-${run.isDestroy}.json`);
      await writeInputDocument(join(dir, 'plan.json'), runFacts(fromRuns(run)), file);
      return (JSON.parse(readFileSync(file, 'utf8')) as { run: Record<string, unknown> }).run;
    };
    expect(await runOf({ isDestroy: true })).toMatchObject({ is_destroy: true, speculative: false });
    expect(await runOf({ isDestroy: false })).toMatchObject({ is_destroy: false });
  });

  it('leaves out what runs does not say (workspace name, is_destroy) instead of inventing it', async () => {
    const file = join(dir, 'input-2.json');
    await writeInputDocument(join(dir, 'plan.json'), RUN_FACTS, file);
    const { run } = JSON.parse(readFileSync(file, 'utf8')) as { run: Record<string, unknown> };
    expect(run).not.toHaveProperty('is_destroy');
    expect(run.workspace).toEqual({ id: 'ws-1' });
  });
});
