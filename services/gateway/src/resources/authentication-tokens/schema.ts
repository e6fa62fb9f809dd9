import { Type } from '@sinclair/typebox';
import {
  defineResource,
  field,
  nullable,
  self,
  Timestamp,
  toOneSet,
  write,
} from '../../schemas/resources.js';

/** `expired-at` in a create body; admin-orgs checks the value (a time with a zone, in the future). */
export const EXPIRED_AT_BODY = Type.Unsafe<string | null>({
  type: ['string', 'null'],
  description:
    'When the token stops authenticating: an ISO 8601 date and time with a time zone, in the future. Absent or null: never.',
  'x-detail': 'Expired at must be an ISO 8601 date and time',
});

/** The wire shape of `authentication-tokens`: response and create body. */
export const AUTHENTICATION_TOKEN = defineResource({
  $id: 'AuthenticationToken',
  type: 'authentication-tokens',
  description: "A user's API token.",
  attributes: {
    description: field(nullable(Type.String()), { write: write.string({ maxLength: 255 }) }),
    token: nullable(Type.String({ description: 'The secret: only in the creation response.' })),
    'created-at': Timestamp,
    'last-used-at': nullable(Timestamp),
    'expired-at': field(nullable(Timestamp), { write: () => EXPIRED_AT_BODY }),
  },
  relationships: { 'created-by': toOneSet('users') },
  links: self,
});
