import { describe, expect, it } from 'vitest';
import { capReport, MAX_REPORT_BYTES, renderReport } from './report.js';

describe('renderReport', () => {
  it('uses the upstream layout clients search in', () => {
    const report = renderReport([
      {
        setName: 'guardrails',
        policyName: 'no-s3',
        enforcementLevel: 'hard-mandatory',
        passed: false,
        lines: ['FALSE - x'],
      },
      { setName: 'guardrails', policyName: 'tags', enforcementLevel: 'advisory', passed: true },
    ]);
    expect(report.split('\n')[0]).toBe('kind_a Result: false');
    expect(report).toContain('\n2 policies evaluated.\n');
    expect(report).toContain('## Policy 1: guardrails/no-s3 (hard-mandatory)\n\nResult: false\n\nFALSE - x');
    expect(report).toContain('## Policy 2: guardrails/tags (advisory)\n\nResult: true');
  });

  it('counts an advisory failure as a passing result', () => {
    const report = renderReport([
      { setName: 's', policyName: 'p', enforcementLevel: 'advisory', passed: false },
    ]);
    expect(report).toMatch(/^kind_a Result: true\n/);
    expect(report).toContain('\n1 policies evaluated.\n');
  });

  it('cuts oversized reports with a visible marker', () => {
    const capped = capReport('x'.repeat(MAX_REPORT_BYTES + 10));
    expect(capped.endsWith(`[report truncated at ${MAX_REPORT_BYTES} bytes]\n`)).toBe(true);
    expect(capReport('short')).toBe('short');
  });
});
