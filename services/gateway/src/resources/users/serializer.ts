import type { adminorgsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { isoTime, selfLink } from '../../jsonapi/document.js';
import type { USER } from './schema.js';

export type UserObject = Static<typeof USER.schema>;

export function serializeUser(u: adminorgsV1.User__Output): UserObject {
  return {
    id: u.id,
    type: 'users',
    attributes: {
      username: u.username,
      email: u.email,
      'is-site-admin': u.isSiteAdmin,
      'created-at': isoTime(u.createdAt),
    },
    links: selfLink(`/users/${u.id}`),
  };
}
