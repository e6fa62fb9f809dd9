import { planStatus, type runsV1 } from '@policyhub/contracts';
import { API_PREFIX, type ResourceObject, selfLink, toOne } from '../../jsonapi/document.js';
import { serializeStatusTimestamps } from '../../jsonapi/status-timestamps.js';

/** The one serializer of `plans` (show, upload answer), in upstream's shape plus `run`. */
export function serializePlan(p: runsV1.Plan__Output): ResourceObject {
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
      'log-read-url': null,
    },
    relationships: { run: toOne('runs', p.runId) },
    links: {
      ...selfLink(`/plans/${p.id}`),
      'json-output': `${API_PREFIX}/plans/${p.id}/json-output`,
    },
  };
}
