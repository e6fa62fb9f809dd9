import { planStatus } from '@policyhub/contracts';
import { Type } from '@sinclair/typebox';
import { Count, defineResource, enumOf, hasOne, self, statusTimestamps } from '../../schemas/resources.js';

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
    'log-read-url': Type.Null(),
  },
  relationships: { run: hasOne('runs') },
  links: { ...self, 'json-output': Type.String() },
});
