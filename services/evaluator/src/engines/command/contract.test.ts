import { describe, expect, it } from 'vitest';
import { RUN_FACTS } from '../../../test/support/run-facts.js';
import { buildEngineRequest, parseEngineResult } from './contract.js';

describe('engine contract', () => {
  it('builds the request with the plan and archives as files', () => {
    const request = buildEngineRequest(
      {
        checkId: 'polchk-1',
        run: RUN_FACTS,
        planFile: '/w/plan.json',
        workDir: '/w/engine-command',
        timeoutMs: 1000,
        signal: new AbortController().signal,
        sets: [
          {
            id: 'polset-1',
            name: 'guardrails',
            kind: 'kind_a',
            parameters: { region: 'eu' },
            policies: [
              { id: 'pol-1', name: 'no-s3', enforcementLevel: 'hard-mandatory', code: 'aws_s3_bucket' },
            ],
            archive: { file: '/w/archive-0.tar.gz', dir: '/w/archive-0', policiesPath: 'prod' },
            versionId: 'polsetver-1',
          },
        ],
      },
      new Map([['polset-1', [{ name: 'x', enforcementLevel: 'advisory', source: './x.sentinel' }]]]),
    );
    expect(request).toEqual({
      contract_version: 2,
      policy_check_id: 'polchk-1',
      run_id: 'run-1',
      organization: 'acme',
      workspace_id: 'ws-1',
      run: { created_at: '2026-01-01T00:00:00.000Z', message: 'ci', plan_only: true },
      work_dir: '/w/engine-command',
      plan_path: '/w/plan.json',
      policy_sets: [
        {
          id: 'polset-1',
          name: 'guardrails',
          kind: 'kind_a',
          parameters: { region: 'eu' },
          version_id: 'polsetver-1',
          archive_path: '/w/archive-0.tar.gz',
          archive_dir: '/w/archive-0',
          policies_path: 'prod',
          archive_policies: [{ name: 'x', enforcement_level: 'advisory', source: './x.sentinel' }],
          policies: [
            { id: 'pol-1', name: 'no-s3', enforcement_level: 'hard-mandatory', code: 'aws_s3_bucket' },
          ],
        },
      ],
    });
  });

  it('reads a result', () => {
    const result = parseEngineResult(
      JSON.stringify({
        policies: [{ policy_set_id: 'polset-1', policy: 'no-s3', passed: false, output: ['FALSE - s3'] }],
        details: { rules: 1 },
      }),
    );
    expect(result).toEqual({
      outcomes: [
        {
          policySetId: 'polset-1',
          policyName: 'no-s3',
          passed: false,
          enforcementLevel: '',
          lines: ['FALSE - s3'],
        },
      ],
      report: undefined,
      details: { rules: 1 },
    });
  });

  it('says what is wrong with a bad result', () => {
    expect(() => parseEngineResult('oops')).toThrow(/not JSON/);
    expect(() => parseEngineResult('{}')).toThrow(/no "policies" array/);
    expect(() =>
      parseEngineResult('{"policies":[{"policy_set_id":"s","policy":"p","passed":"yes"}]}'),
    ).toThrow(/policies\[0\]\.passed must be true or false/);
    expect(() => parseEngineResult('{"policies":[],"details":[1]}')).toThrow(
      /"details" must be a JSON object/,
    );
  });
});
