import { policySetVersionRole, policySetVersionStatus } from '@policyhub/contracts';
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
    'archive-sha256': nullable(
      Type.String({
        description: 'Hex SHA-256 of the stored archive, as computed at upload; null until ready.',
      }),
    ),
    role: nullable(
      enumOf(
        policySetVersionRole.words,
        "A ready version's place in the rollout: `current` (new evaluations use it), `staged` (ready, never current: created with `auto-promote: false` and not promoted yet) or `superseded` (was current, another one is now). Null while pending or errored.",
      ),
    ),
    'declared-policies': Type.Unsafe<Array<{ name: string; 'enforcement-level': string }> | null>({
      type: ['array', 'null'],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'enforcement-level'],
        properties: {
          name: { type: 'string' },
          'enforcement-level': {
            type: 'string',
            description:
              "The framework's word: advisory, soft-mandatory, hard-mandatory (Sentinel); advisory, mandatory (OPA).",
          },
        },
      },
      description:
        "The policies the archive's configuration file declares (sentinel.hcl, policies.hcl or policies.json), in its order, as read at upload. Null when none was recorded: pending, errored, or ready before declarations were recorded.",
    }),
  },
  relationships: {
    'policy-set': hasOne('policy-sets'),
    'created-by': hasOne('users'),
  },
  links: { ...self, upload: UploadUrl },
});
