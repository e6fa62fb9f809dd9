import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_FACTS } from '../../../test/support/run-facts.js';
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

  it('leaves out what runs does not say (workspace name, is_destroy) instead of inventing it', async () => {
    const file = join(dir, 'input-2.json');
    await writeInputDocument(join(dir, 'plan.json'), RUN_FACTS, file);
    const { run } = JSON.parse(readFileSync(file, 'utf8')) as { run: Record<string, unknown> };
    expect(run).not.toHaveProperty('is_destroy');
    expect(run.workspace).toEqual({ id: 'ws-1' });
  });
});
