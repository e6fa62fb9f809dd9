import { Type } from '@sinclair/typebox';
import { closed, defineResource, field, identifier, self, write } from '../../schemas/resources.js';

/** The wire shape of `comments`: response and create body. */
export const COMMENT = defineResource({
  $id: 'Comment',
  type: 'comments',
  description: 'A comment on a run.',
  attributes: {
    body: field(Type.String(), { write: write.string({ required: true, maxLength: 65_536 }) }),
  },
  relationships: {
    'run-event': closed({ data: identifier('run-events'), links: closed({ related: Type.String() }) }),
  },
  links: self,
});
