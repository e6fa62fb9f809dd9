import type { runsV1 } from '@policyhub/contracts';
import type { Static } from '@sinclair/typebox';
import { API_PREFIX, selfLink } from '../../jsonapi/document.js';
import type { COMMENT } from './schema.js';

export type CommentObject = Static<typeof COMMENT.schema>;

/** The one serializer of `comments` (create, show, list); upstream's shape. */
export function serializeComment(c: runsV1.Comment__Output): CommentObject {
  return {
    id: c.id,
    type: 'comments',
    attributes: { body: c.body },
    relationships: {
      'run-event': {
        data: { id: c.runEventId, type: 'run-events' },
        links: { related: `${API_PREFIX}/run-events/${c.runEventId}` },
      },
    },
    links: selfLink(`/comments/${c.id}`),
  };
}
