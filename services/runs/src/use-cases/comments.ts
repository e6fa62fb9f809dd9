import { pageInfo, pageWindow } from '@policyhub/db';
import { newId, notFound } from '@policyhub/errors';
import type { Principal } from '@policyhub/permissions';
import { CommentRepository, type CommentRow } from '../db/comment-repository.js';
import { READ_RUNS, requirePermission, requirePrincipal, validateCommentBody } from '../domain/rules.js';
import { readableRun } from './access.js';
import type { Deps } from '../deps.js';
import { recordRunEvent } from './transitions.js';

const FOREIGN_KEY_VIOLATION = '23503';

type Page = { number?: number; size?: number } | null | undefined;

/** Comments on runs in any state; each one is also a `commented` run event. */
export class CommentUseCases {
  private readonly comments: CommentRepository;

  constructor(private readonly deps: Deps) {
    this.comments = new CommentRepository(deps.db);
  }

  async create(principal: Principal | undefined, runId: string, body: string): Promise<CommentRow> {
    const caller = requirePrincipal(principal);
    await readableRun(this.deps.db, caller, runId);
    validateCommentBody(body);
    const id = newId('wsc');
    try {
      await this.deps.db.transaction(async (tx) => {
        const runEventId = await recordRunEvent(tx, {
          runId,
          action: 'commented',
          actorUserId: caller.userId,
          commentId: id,
        });
        await new CommentRepository(tx).insert({ id, runId, body, runEventId, authorUserId: caller.userId });
      });
    } catch (err) {
      // The run was deleted (its workspace went away) between the check above and the insert.
      if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw notFound('RUNS_RUN_NOT_FOUND');
      throw err;
    }
    return (await this.comments.get(id))!;
  }

  async get(principal: Principal | undefined, id: string): Promise<CommentRow> {
    const comment = await this.comments.get(id);
    if (!comment) throw notFound('RUNS_COMMENT_NOT_FOUND');
    requirePermission(
      principal,
      comment.organization,
      READ_RUNS,
      'RUNS_COMMENT_NOT_FOUND',
      comment.organization_id,
    );
    return comment;
  }

  async listByRun(principal: Principal | undefined, runId: string, page: Page) {
    await readableRun(this.deps.db, principal, runId);
    const w = pageWindow(page);
    const { rows, total } = await this.comments.listByRun(runId, w.size, w.offset);
    return { comments: rows, page: pageInfo(w, total) };
  }
}
