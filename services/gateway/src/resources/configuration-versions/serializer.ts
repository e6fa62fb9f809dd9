import { configurationVersionSource, configurationVersionStatus, type runsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { API_PREFIX, isoTime, selfLink } from '../../jsonapi/document.js';
import { serializeStatusTimestamps } from '../../jsonapi/status-timestamps.js';
import { uploadUrl } from '../policy-set-versions/serializer.js';
import type { CONFIGURATION_VERSION } from './schema.js';

export type ConfigurationVersionObject = Static<typeof CONFIGURATION_VERSION.schema>;

/**
 * The one serializer of `configuration-versions` (create, show, list), in upstream's shape (the
 * attributes go-tfe decodes). `upload-url` is the single-use capability URL while it can still
 * be used, null afterwards.
 */
export function serializeConfigurationVersion(
  v: runsV1.ConfigurationVersion__Output,
  baseUrl: string,
): ConfigurationVersionObject {
  return {
    id: v.id,
    type: 'configuration-versions',
    attributes: {
      'auto-queue-runs': v.autoQueueRuns,
      error: v.error ?? null,
      'error-message': v.errorMessage ?? null,
      source: configurationVersionSource.toWord(v.source),
      speculative: v.speculative,
      provisional: v.provisional,
      status: configurationVersionStatus.toWord(v.status),
      'status-timestamps': serializeStatusTimestamps(v.statusTimestamps, { 'finished-at': v.finishedAt }),
      'upload-url': v.uploadToken === undefined ? null : uploadUrl(baseUrl, v.uploadToken),
      'created-at': isoTime(v.createdAt),
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
