import { planStatus } from '@policyhub/contracts';
import { Type } from '@sinclair/typebox';
import {
  Count,
  defineResource,
  enumOf,
  hasOne,
  nullable,
  self,
  statusTimestamps,
} from '../../schemas/resources.js';

/** The wire shape of `plans` (never written as a document: the JSON plan is uploaded raw). */
export const PLAN = defineResource({
  $id: 'Plan',
  type: 'plans',
  description: "A run's plan.",
  attributes: {
    status: enumOf(planStatus.words),
    'status-timestamps': statusTimestamps('`pending-at`, `finished-at`, …'),
    'has-changes': Type.Boolean(),
    'resource-additions': Count,
    'resource-changes': Count,
    'resource-destructions': Count,
    'resource-imports': Count,
    'log-read-url': nullable(
      Type.String({
        description:
          "Absolute URL of the plan's log (no token needed: the URL is the right to read it, for 30 to 60 minutes and while the caller may read runs); null for internal callers.",
      }),
    ),
  },
  relationships: { run: hasOne('runs') },
  links: { ...self, 'json-output': Type.String() },
});
