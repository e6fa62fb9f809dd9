import { Type } from '@sinclair/typebox';
import { defineResource, field, self, Timestamp, write } from '../../schemas/resources.js';

/** The wire shape of `users`: response and the site admin's create body. */
export const USER = defineResource({
  $id: 'User',
  type: 'users',
  description: 'A user.',
  attributes: {
    username: field(Type.String(), { write: write.string({ required: true, maxLength: 90 }) }),
    email: field(Type.String(), { write: write.string({ required: true, maxLength: 254 }) }),
    'is-site-admin': field(Type.Boolean(), { write: write.boolean() }),
    'created-at': Timestamp,
  },
  links: self,
  body: {
    writeOnly: {
      'is-admin': write.described('Alias of is-site-admin (read only when is-site-admin is absent).', {
        type: ['boolean', 'null'],
      }),
    },
  },
});
