import { planStatus, type runsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { API_PREFIX, selfLink, toOne } from '../../jsonapi/document.js';
import { serializeStatusTimestamps } from '../../jsonapi/status-timestamps.js';
import type { PLAN } from './schema.js';

export type PlanObject = Static<typeof PLAN.schema>;

/** Absolute URL of a plan log for its capability token (no bearer token needed). */
export const planLogUrl = (baseUrl: string, token: string): string =>
  `${baseUrl}${API_PREFIX}/plan-logs/${token}`;

/** The one serializer of `plans` (show, upload answer), in upstream's shape plus `run`. */
export function serializePlan(p: runsV1.Plan__Output, baseUrl: string): PlanObject {
  return {
    id: p.id,
    type: 'plans',
    attributes: {
      status: planStatus.toWord(p.status),
      'status-timestamps': serializeStatusTimestamps(p.statusTimestamps),
      'has-changes': p.hasChanges,
      'resource-additions': p.resourceAdditions,
      'resource-changes': p.resourceChanges,
      'resource-destructions': p.resourceDestructions,
      'resource-imports': p.resourceImports,
      'log-read-url': p.logReadToken ? planLogUrl(baseUrl, p.logReadToken) : null,
    },
    relationships: { run: toOne('runs', p.runId) },
    links: {
      ...selfLink(`/plans/${p.id}`),
      'json-output': `${API_PREFIX}/plans/${p.id}/json-output`,
    },
  };
}
