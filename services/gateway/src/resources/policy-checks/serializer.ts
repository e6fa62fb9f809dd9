import { policyCheckScope, policyCheckStatus, type runsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { API_PREFIX, isoTime, selfLink, toOne } from '../../jsonapi/document.js';
import { serializeStatusTimestamps } from '../../jsonapi/status-timestamps.js';
import { CANONICAL } from '../../vocabulary.js';
import type { POLICY_CHECK } from './schema.js';

export type PolicyCheckObject = Static<typeof POLICY_CHECK.schema>;

/**
 * The one serializer of `policy-checks` (show, list, override, included). `result` carries the
 * engine hash under the canonical framework-named key of the vocabulary table (the served
 * profile renames it at the edge), and both `duration-ms`
 * (upstream) and `duration` (what the Go client decodes).
 */
export function serializePolicyCheck(c: runsV1.PolicyCheck__Output): PolicyCheckObject {
  const r = c.result;
  return {
    id: c.id,
    type: 'policy-checks',
    attributes: {
      result: r
        ? {
            result: r.result,
            passed: r.passed,
            'total-failed': r.totalFailed,
            'hard-failed': r.hardFailed,
            'soft-failed': r.softFailed,
            'advisory-failed': r.advisoryFailed,
            'duration-ms': r.durationMs,
            duration: r.durationMs,
            [CANONICAL.policyCheckEngineKey]: engineDetails(r.engineDetailsJson),
          }
        : null,
      scope: policyCheckScope.toWord(c.scope),
      status: policyCheckStatus.toWord(c.status),
      'status-timestamps': serializeStatusTimestamps(c.statusTimestamps),
      actions: { 'is-overridable': c.isOverridable },
      permissions: { 'can-override': c.canOverride },
      'created-at': isoTime(c.createdAt),
    },
    relationships: { run: toOne('runs', c.runId) },
    links: {
      ...selfLink(`/policy-checks/${c.id}`),
      output: `${API_PREFIX}/policy-checks/${c.id}/output`,
    },
  };
}

/** Opaque engine output; runs guarantees a non-empty JSON object. */
function engineDetails(json: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { raw: json };
}
