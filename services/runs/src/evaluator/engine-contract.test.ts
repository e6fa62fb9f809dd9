import { describe, expect, it } from 'vitest';
import { buildEngineRequest, parseEngineResult } from './engine-contract.js';

describe('engine contract', () => {
  it('builds the request with the plan parsed and archives in base64', () => {
    const request = buildEngineRequest({
      policyCheckId: 'polchk-1',
      runId: 'run-1',
      organization: 'acme',
      workspaceId: 'ws-1',
      planJson: Buffer.from('{"resource_changes":[]}'),
      policySets: [
        {
          id: 'polset-1',
          name: 'guardrails',
          kind: 'kind_a',
          parameters: { region: 'eu' },
          policies: [
            { id: 'pol-1', name: 'no-s3', enforcementLevel: 'hard-mandatory', code: 'aws_s3_bucket' },
          ],
          archive: Buffer.from('tgz'),
          versionId: 'polsetver-1',
        },
      ],
    });
    expect(request).toEqual({
      contract_version: 1,
      policy_check_id: 'polchk-1',
      run_id: 'run-1',
      organization: 'acme',
      workspace_id: 'ws-1',
      policy_sets: [
        {
          id: 'polset-1',
          name: 'guardrails',
          kind: 'kind_a',
          parameters: { region: 'eu' },
          version_id: 'polsetver-1',
          archive_base64: Buffer.from('tgz').toString('base64'),
          policies: [
            { id: 'pol-1', name: 'no-s3', enforcement_level: 'hard-mandatory', code: 'aws_s3_bucket' },
          ],
        },
      ],
      plan: { resource_changes: [] },
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
