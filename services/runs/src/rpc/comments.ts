import type { runsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type { CommentUseCases } from '../use-cases/comments.js';
import { toComment } from './mappers.js';

export function commentHandlers(comments: CommentUseCases): Handlers<runsV1.CommentsHandlers> {
  return {
    async CreateComment(req, { principal }) {
      return { comment: toComment(await comments.create(principal, req.runId, req.body)) };
    },
    async GetComment(req, { principal }) {
      return { comment: toComment(await comments.get(principal, req.id)) };
    },
    async ListRunComments(req, { principal }) {
      const res = await comments.listByRun(principal, req.runId, req.page);
      return { comments: res.comments.map(toComment), page: res.page };
    },
  };
}
