import { configurationVersionStatus } from '@policyhub/contracts';
import { Type } from '@sinclair/typebox';
import {
  closed,
  defineResource,
  enumOf,
  field,
  nullable,
  self,
  statusTimestamps,
  Timestamp,
  UploadUrl,
  write,
} from '../../schemas/resources.js';

/** The wire shape of `configuration-versions`: response and the (optional) create body. */
export const CONFIGURATION_VERSION = defineResource({
  $id: 'ConfigurationVersion',
  type: 'configuration-versions',
  description: 'A configuration version of a workspace.',
  attributes: {
    'auto-queue-runs': field(Type.Boolean(), { write: write.boolean('Default true.') }),
    error: nullable(Type.String()),
    'error-message': nullable(Type.String()),
    source: Type.String(),
    speculative: field(Type.Boolean(), { write: write.boolean('Default false.') }),
    provisional: field(Type.Boolean(), { write: write.boolean('Default false.') }),
    status: enumOf(configurationVersionStatus.words),
    'status-timestamps': statusTimestamps('`pending-at`, `uploaded-at`, `finished-at`, …'),
    'upload-url': UploadUrl,
    'created-at': Timestamp,
  },
  relationships: {
    'ingress-attributes': closed({ data: Type.Null(), links: closed({ related: Type.String() }) }),
  },
  links: { ...self, download: Type.String() },
});
