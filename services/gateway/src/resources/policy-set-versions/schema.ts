import { policySetVersionStatus } from '@policyhub/contracts';
import { Type } from '@sinclair/typebox';
import {
  defineResource,
  enumOf,
  hasOne,
  nullable,
  self,
  statusTimestamps,
  Timestamp,
  UploadUrl,
} from '../../schemas/resources.js';

/** The wire shape of `policy-set-versions` (created without a body). */
export const POLICY_SET_VERSION = defineResource({
  $id: 'PolicySetVersion',
  type: 'policy-set-versions',
  description: 'A policy set version (an uploaded archive of policies).',
  attributes: {
    source: Type.String(),
    status: enumOf(policySetVersionStatus.words),
    'status-timestamps': statusTimestamps('`pending-at`, `ready-at`, `errored-at`.'),
    error: nullable(Type.String()),
    'error-message': nullable(Type.String()),
    'ingress-attributes': Type.Null(),
    'created-at': Timestamp,
    'updated-at': Timestamp,
    created_at: Timestamp,
    upload: UploadUrl,
  },
  relationships: { 'policy-set': hasOne('policy-sets') },
  links: { ...self, upload: UploadUrl },
});
