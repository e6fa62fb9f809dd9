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
    'expired-at': Type.Null(),
  },
  relationships: { 'created-by': toOneSet('users') },
  links: self,
});
