import {
  MAX_DETAILS_BYTES,
  MAX_REPORT_BYTES,
  storableText,
  unstorableJson,
  unstorableText,
} from '@policyhub/db';
import type { PolicyOutcome } from './engines/engine.js';

/*
 * The edge of the pipeline on the evaluator's side: what an engine answered is checked before it
 * is reported, so that tenant data runs cannot store (NUL, unpaired surrogates, details nested
 * too deep or too large) errors the check on its first attempt instead of failing the report and
 * coming back for every lease. The report is display text: it is cut to what runs keeps.
 */

export type Reportable =
  | { outcomes: PolicyOutcome[]; report: string; detailsJson: string | undefined }
  | { error: string };

export function reportable(evaluation: {
  outcomes: PolicyOutcome[];
  report: string;
  details: Record<string, unknown> | undefined;
}): Reportable {
  const refused = (why: string) => ({ error: `the engine's result cannot be stored: ${why}` });
  for (const o of evaluation.outcomes) {
    const why = unstorableText(o.policySetId) ?? unstorableText(o.policyName);
    if (why) return refused(`a policy name it reported ${why}`);
  }
  const inReport = unstorableText(evaluation.report);
  if (inReport) return refused(`its report ${inReport}`);
  // Policy evaluations also store each outcome's lines, query and description.
  for (const o of evaluation.outcomes) {
    const inText =
      o.lines.map(unstorableText).find(Boolean) ??
      unstorableText(o.query ?? '') ??
      unstorableText(o.description ?? '');
    if (inText) return refused(`the output of policy ${o.policyName} ${inText}`);
  }
  let detailsJson: string | undefined;
  if (evaluation.details) {
    // Checked before JSON.stringify, which recurses and would overflow the stack on deep values.
    const inDetails = unstorableJson(evaluation.details);
    if (inDetails) return refused(`its details: ${inDetails}`);
    detailsJson = JSON.stringify(evaluation.details);
    const bytes = Buffer.byteLength(detailsJson);
    if (bytes > MAX_DETAILS_BYTES) {
      return refused(`its details are ${bytes} bytes of JSON, more than ${MAX_DETAILS_BYTES}`);
    }
  }
  return { outcomes: evaluation.outcomes, report: capReport(evaluation.report), detailsJson };
}

/** A failure's message and report, made storable and small enough for one message. */
export function reportableFailure(error: string, report: string | undefined) {
  return {
    errorMessage: storableText(error.slice(0, 10_000)),
    report: report === undefined ? undefined : capReport(storableText(report)),
  };
}

function capReport(report: string): string {
  if (Buffer.byteLength(report) <= MAX_REPORT_BYTES) return report;
  const cut = Buffer.from(report).subarray(0, MAX_REPORT_BYTES).toString('utf8');
  return `${cut}\n\n[report truncated at ${MAX_REPORT_BYTES} bytes]\n`;
}
