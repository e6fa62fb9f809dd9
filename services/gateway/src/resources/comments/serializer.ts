import type { runsV1 } from '@policyhub/contracts';
import { API_PREFIX, type ResourceObject, selfLink } from '../../jsonapi/document.js';

/** The one serializer of `comments` (create, show, list); upstream's shape (api-behaviour §5). */
export function serializeComment(c: runsV1.Comment__Output): ResourceObject {
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
