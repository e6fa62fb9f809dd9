import type { runsV1 } from '@policyhub/contracts';
import { API_PREFIX, type ResourceObject, orNull, selfLink } from '../../jsonapi/document.js';
import { uploadUrl } from '../policy-set-versions/serializer.js';

/**
 * The one serializer of `configuration-versions` (create, show, list), in upstream's shape (the
 * attributes go-tfe decodes). `upload-url` is the single-use capability URL while it can still
 * be used, null afterwards.
 */
export function serializeConfigurationVersion(
  v: runsV1.ConfigurationVersion__Output,
  baseUrl: string,
): ResourceObject {
  return {
    id: v.id,
    type: 'configuration-versions',
    attributes: {
      'auto-queue-runs': v.autoQueueRuns,
      error: orNull(v.error),
      'error-message': orNull(v.errorMessage),
      source: v.source,
      speculative: v.speculative,
      provisional: v.provisional,
      status: v.status,
      'status-timestamps': { ...v.statusTimestamps },
      'upload-url': v.uploadToken ? uploadUrl(baseUrl, v.uploadToken) : null,
      'created-at': v.createdAt,
    },
    relationships: {
      'ingress-attributes': {
        data: null,
        links: { related: `${API_PREFIX}/configuration-versions/${v.id}/ingress-attributes` },
      },
    },
    links: {
      ...selfLink(`/configuration-versions/${v.id}`),
      download: `${API_PREFIX}/configuration-versions/${v.id}/download`,
    },
  };
}
