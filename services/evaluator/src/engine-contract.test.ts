import { describe, expect, it } from 'vitest';
import { buildEngineRequest, parseEngineResult } from './engine-contract.js';

describe('engine contract', () => {
  it('builds the request with the plan and archives as files', () => {
    const request = buildEngineRequest(
      {
        policyCheckId: 'polchk-1',
        runId: 'run-1',
        organization: 'acme',
        workspaceId: 'ws-1',
        plan: { key: 'acme/runs/run-1/plan.json', sizeBytes: 2, sha256: 'x' },
        run: { createdAt: { seconds: 1767225600, nanos: 0 }, message: 'ci', planOnly: true },
        policySets: [
          {
            id: 'polset-1',
            name: 'guardrails',
            kind: 'EVALUATION_POLICY_KIND_A',
            parameters: { region: 'eu' },
            policies: [
              {
                id: 'pol-1',
                name: 'no-s3',
                enforcementLevel: 'EVALUATION_ENFORCEMENT_LEVEL_HARD_MANDATORY',
                code: 'aws_s3_bucket',
              },
            ],
            archive: { key: 'acme/a.tar.gz', sizeBytes: 10, sha256: 'y' },
            versionId: 'polsetver-1',
            policiesPath: 'prod',
          },
        ],
      },
      {
        workDir: '/w',
        planPath: '/w/plan.json',
        archives: new Map([
          [
            'polset-1',
            {
              archivePath: '/w/archive-0.tar.gz',
              archiveDir: '/w/archive-0',
              policiesPath: 'prod',
              declared: [{ name: 'x', enforcementLevel: 'advisory', source: './x.sentinel' }],
            },
          ],
        ]),
      },
    );
    expect(request).toEqual({
      contract_version: 2,
      policy_check_id: 'polchk-1',
      run_id: 'run-1',
      organization: 'acme',
      workspace_id: 'ws-1',
      run: { created_at: '2026-01-01T00:00:00.000Z', message: 'ci', plan_only: true },
      work_dir: '/w',
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
