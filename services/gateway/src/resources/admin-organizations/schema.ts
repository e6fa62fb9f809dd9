import { Type } from '@sinclair/typebox';
import {
  defineResource,
  field,
  hasMany,
  nullable,
  relatedOnly,
  self,
  Timestamp,
  write,
} from '../../schemas/resources.js';
import { CANONICAL } from '../../vocabulary.js';

const timeout = nullable(Type.String({ description: 'A duration such as `2h`; null: the default.' }));
const writeTimeout = write.string({
  maxLength: 64,
  description: 'A duration such as `2h`; null or "" resets it.',
});

/**
 * The wire shape of `organizations` as site admins see them: response and update body. The worker
 * sudo flag and the deprecated timeout aliases are named by the vocabulary profile (ADR 0020);
 * bodies may send them under every profile's name.
 */
export const ADMIN_ORGANIZATION = defineResource({
  $id: 'AdminOrganization',
  type: 'organizations',
  description: "An organization (the site admin's view).",
  attributes: {
    name: Type.String(),
    'external-id': Type.String(),
    'notification-email': Type.String(),
    'created-at': Timestamp,
    'access-beta-tools': field(Type.Boolean(), { write: write.boolean() }),
    'is-disabled': field(Type.Boolean(), { write: write.boolean() }),
    // Read-only: an update that sends it is not refused, it is ignored like any unknown attribute.
    'sso-enabled': Type.Boolean(),
    'global-module-sharing': field(Type.Boolean(), { write: write.boolean() }),
    'global-provider-sharing': field(Type.Boolean(), { write: write.boolean() }),
    [CANONICAL.workerSudoEnabled]: field(Type.Boolean(), {
      write: write.boolean(),
      wording: { name: (names) => names.workerSudoEnabled },
    }),
    'workspace-limit': field(nullable(Type.Integer()), {
      write: write.nullableInteger({ min: 0, description: 'null resets it to "no limit".' }),
    }),
    'apply-timeout': field(timeout, { write: writeTimeout }),
    'plan-timeout': field(timeout, { write: writeTimeout }),
    [CANONICAL.applyTimeoutAlias]: field(timeout, {
      write: writeTimeout,
      wording: { name: (names) => names.applyTimeoutAlias },
    }),
    [CANONICAL.planTimeoutAlias]: field(timeout, {
      write: writeTimeout,
      wording: { name: (names) => names.planTimeoutAlias },
    }),
  },
  relationships: {
    owners: hasMany('users'),
    'module-consumers': relatedOnly(),
    'provider-consumers': relatedOnly(),
  },
  links: self,
  body: {
    // Each timeout beside its alias; a 422 lists problems in this order.
    order: [
      'access-beta-tools',
      'global-module-sharing',
      'global-provider-sharing',
      'is-disabled',
      CANONICAL.workerSudoEnabled,
      'apply-timeout',
      CANONICAL.applyTimeoutAlias,
      'plan-timeout',
      CANONICAL.planTimeoutAlias,
      'workspace-limit',
    ],
  },
});
