/** One evaluated policy as the text report shows it. */
export interface ReportedPolicy {
  setName: string;
  policyName: string;
  enforcementLevel: string;
  passed: boolean;
  /** Engine lines explaining the result (rule results, violations). */
  lines?: readonly string[];
}

/**
 * The policy check's text report in upstream's layout: overall result line,
 * an explanation, `<N> policies evaluated.`, then one section per policy. Clients search the log
 * for the `policies evaluated` line.
 */
export function renderReport(policies: readonly ReportedPolicy[], frameworkName = 'kind_a'): string {
  const blocking = policies.some((p) => !p.passed && p.enforcementLevel !== 'advisory');
  const advisoryFailures = policies.some((p) => !p.passed && p.enforcementLevel === 'advisory');
  const lines: string[] = [`${frameworkName} Result: ${!blocking}`, ''];
  if (!blocking && !advisoryFailures) {
    lines.push('This result means that all policies passed.');
  } else if (!blocking) {
    lines.push('This result means that all mandatory policies passed; advisory failures are shown below.');
  } else {
    lines.push(
      'This result means that one or more mandatory policies failed. Soft-mandatory failures can be',
      'overridden by a user allowed to override policies; hard-mandatory failures stop the run.',
    );
  }
  // Always "policies", also for one: clients match `<N> policies evaluated`.
  lines.push('', `${policies.length} policies evaluated.`);
  policies.forEach((p, i) => {
    lines.push(
      '',
      `## Policy ${i + 1}: ${p.setName}/${p.policyName} (${p.enforcementLevel})`,
      '',
      `Result: ${p.passed}`,
    );
    if (p.lines && p.lines.length > 0) lines.push('', ...p.lines);
  });
  return `${lines.join('\n')}\n`;
}

/** Reports are capped; anything longer is cut with a visible marker (the evaluator cuts at the same size, `@policyhub/db`). */
export const MAX_REPORT_BYTES = 1024 * 1024;

export function capReport(report: string): string {
  if (Buffer.byteLength(report) <= MAX_REPORT_BYTES) return report;
  const cut = Buffer.from(report).subarray(0, MAX_REPORT_BYTES).toString('utf8');
  return `${cut}\n\n[report truncated at ${MAX_REPORT_BYTES} bytes]\n`;
}
