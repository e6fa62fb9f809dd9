/** One evaluated policy as the text report shows it. */
export interface ReportedPolicy {
  setName: string;
  policyName: string;
  enforcementLevel: string;
  passed: boolean;
  /** Engine lines explaining the result (rule results, violations, print output). */
  lines?: readonly string[];
}

/**
 * The check's text report in upstream's layout: overall result line, an explanation,
 * `<N> policies evaluated.`, then one section per policy with the engine's lines. The evaluator
 * renders it because the lines never reach runs (CompletePolicyCheck carries outcomes without
 * them); runs renders the same layout, without lines, for workers that send no report.
 */
export function renderReport(policies: readonly ReportedPolicy[], frameworkName = 'kind_a'): string {
  const isBlocking = (p: ReportedPolicy) => !p.passed && p.enforcementLevel !== 'advisory';
  const hasBlocking = policies.some(isBlocking);
  const hasAdvisoryFailure = policies.some((p) => !p.passed && !isBlocking(p));
  const lines: string[] = [`${frameworkName} Result: ${!hasBlocking}`, ''];
  if (hasBlocking) {
    lines.push(
      'This result means that one or more mandatory policies failed. Soft-mandatory failures can be',
      'overridden by a user allowed to override policies; hard-mandatory failures stop the run.',
    );
  } else if (hasAdvisoryFailure) {
    lines.push('This result means that all mandatory policies passed; advisory failures are shown below.');
  } else {
    lines.push('This result means that all policies passed.');
  }
  // Always "policies", also for one: clients match `<N> policies evaluated`.
  lines.push('', `${policies.length} policies evaluated.`);
  for (const [i, p] of policies.entries()) {
    lines.push(
      '',
      `## Policy ${i + 1}: ${p.setName}/${p.policyName} (${p.enforcementLevel})`,
      '',
      `Result: ${p.passed}`,
    );
    if (p.lines && p.lines.length > 0) lines.push('', ...p.lines);
  }
  return `${lines.join('\n')}\n`;
}
