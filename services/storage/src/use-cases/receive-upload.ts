import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound } from '@policyhub/errors';
import { ArchiveInspector } from '../archives/archive-inspector.js';
import { ObjectRepository } from '../db/object-repository.js';
import { type SessionRef, SessionRepository } from '../db/session-repository.js';
import type { Deps } from '../deps.js';
import { requireUploadableOrganization } from '../domain/organization-status.js';
import { formatDuration, leaseRenewalMs } from '../domain/upload-limits.js';
import type { UploadOutcome } from '../domain/upload-outcomes.js';
import {
  hashUploadToken,
  isLegacyToken,
  sessionProblem,
  type UploadSession,
} from '../domain/upload-sessions.js';
import { enqueueUploadCompleted } from '../events/upload-completed.js';
import type { ObjectWriter } from '../objects/object-store.js';
import { openObjectWriter } from '../objects/object-writer.js';

type UploadDeps = Pick<
  Deps,
  'db' | 'relay' | 'store' | 'organizations' | 'limits' | 'stagingDir' | 'logger' | 'uploadTokens'
>;

export interface ReceivedUpload {
  session: UploadSession;
  outcome: UploadOutcome;
}

/** The sender went away (cancelled) before the upload completed. */
export class UploadAbandonedError extends Error {
  constructor() {
    super('the sender abandoned the upload');
    this.name = 'UploadAbandonedError';
  }
}

/**
 * The upload pipeline (docs/adr/0003-upload-pipeline.md). Claims the session the token names, streams the body through
 * the archive inspector straight into the object store (a writer whose bytes are invisible until
 * published, docs/adr/0037), and then, in ONE transaction, marks the session used, publishes the
 * object under its key (only if the archive passed), records it and writes
 * storage.upload-completed, for both outcomes. After the commit it flushes the outbox, so in
 * embedded mode the owner has applied the outcome before the caller answers.
 *
 * Token problems (unknown, used, expired, held by another upload) throw before anything is read.
 * If the body stops early (client gone, timeout) the session is released untouched and nothing
 * is stored. So does an organization that is disabled or gone, or a creator who no longer holds
 * the session's permission (or was deleted): checked with admin-orgs while the
 * body streams in (a refusal stops reading at once) and again once it has ended, while the bytes
 * are made durable; the session stays unused (the owner's version unchanged) and the same URL
 * works once the organization is enabled again.
 */
export async function receiveUpload(
  deps: UploadDeps,
  token: string,
  body: AsyncIterable<Buffer>,
  isAbandoned: () => boolean,
): Promise<ReceivedUpload> {
  const session = await claimSession(deps, token);
  const attempt = session.attemptId;
  const sessions = new SessionRepository(deps.db);
  const lease = renewLease(deps, session.id, attempt);
  const organizationCheck = () =>
    requireUploadableOrganization(deps.organizations, {
      organization: session.organization,
      organizationId: session.organizationId,
      createdBy: session.createdBy,
      requiredPermission: session.requiredPermission,
    });
  // The first check runs while the body streams in; its refusal ends the stream (see withDeadline).
  const checkedBefore = organizationCheck();
  checkedBefore.catch(() => {});
  const writer = await openObjectWriter(deps.store, session.objectKey, {
    contentType: 'application/gzip',
    keepAliveMs: leaseRenewalMs(deps.limits),
    stagingDir: deps.stagingDir,
  }).catch(async (err: unknown) => {
    lease.stop();
    await sessions.release(session.id, attempt).catch(() => {});
    throw err;
  });
  const inspector = new ArchiveInspector(deps.limits, { layout: session.layout, root: session.layoutRoot });
  const published = { value: false };
  try {
    for await (const chunk of withDeadline(body, deps.limits.uploadTimeoutMs, checkedBefore)) {
      await inspector.write(chunk);
      if (inspector.isOverLimit) break;
      if (!inspector.rejected) await writer.write(chunk);
    }
    await checkedBefore;
    // The verdict, making the bytes durable and the second organization check (disabled or
    // deleted while the body streamed in: refused before any outcome is recorded) run together.
    // A body already rejected while it streamed is not worth an fsync; an archive the verdict
    // rejects has its sealed bytes discarded. A failure is reported in this order, not in the
    // order they happen to fail.
    const [inspection, , sealed] = await allInOrder([
      inspector.finish(),
      organizationCheck(),
      inspector.rejected ? writer.discard().then(() => '') : writer.seal(),
    ] as const);
    if (!inspection.ok) await writer.discard();
    // A sender that went away leaves a truncated body: that must not spend the URL.
    if (isAbandoned()) throw new UploadAbandonedError();
    const outcome: UploadOutcome = inspection.ok ? { ...inspection, sha256: sealed } : inspection;
    await completeUpload(deps, session, attempt, outcome, writer, published);
    await deps.relay.flushWithin();
    return { session, outcome };
  } catch (err) {
    inspector.abort();
    await writer.discard();
    // Published but not recorded (the commit failed): remove the object unless the session ended
    // up used after all (a commit whose answer was lost). Nobody else can publish under this key
    // meanwhile: this attempt still holds the session.
    if (published.value && (await sessions.isUsed(session.id).catch(() => true)) === false) {
      await deps.store.delete([session.objectKey]).catch(() => {});
    }
    await sessions.release(session.id, attempt).catch(() => {});
    throw err;
  } finally {
    lease.stop();
  }
}

/**
 * Keeps the attempt's hold on its session while it runs: the lease is renewed every third of its
 * length, so a process that dies mid-upload frees the URL within one lease (not the whole upload
 * timeout). A renewal that finds the hold gone (the lease lapsed during a stall and the sweeper
 * or another attempt took over) changes nothing here: the attempt then fails to mark the session
 * used and leaves no trace.
 */
function renewLease(deps: UploadDeps, sessionId: string, attemptId: string) {
  const sessions = new SessionRepository(deps.db);
  const timer = setInterval(() => {
    sessions.renew(sessionId, attemptId, deps.limits.uploadLeaseMs).then(
      (held) => {
        if (!held) deps.logger.warn({ sessionId }, 'upload lost its hold on the session');
      },
      (err: unknown) => deps.logger.warn({ err, sessionId }, 'renewing the upload lease failed'),
    );
  }, leaseRenewalMs(deps.limits));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * The session a token names: a sealed token (ADR 0059) names it by id, and one past its own
 * expiry takes nothing (its session, which expires at the same moment, answers why: expired or
 * used, as any late upload; a session still open does not take a token it outlived: unknown URL).
 * A session opened before sealed tokens is found by the SHA-256 of its random token.
 */
async function claimSession(deps: UploadDeps, token: string): Promise<UploadSession & { attemptId: string }> {
  const sessions = new SessionRepository(deps.db);
  const ref = sessionRefOf(deps, token);
  if (!ref) throw notFound('STORAGE_UPLOAD_NOT_FOUND');
  const now = new Date();
  if (ref.tokenExpiresAt !== undefined && ref.tokenExpiresAt <= now.getTime()) {
    throw sessionProblem(await sessions.find(ref.session), now) ?? notFound('STORAGE_UPLOAD_NOT_FOUND');
  }
  const attemptId = randomUUID();
  const claimed = await sessions.claim(ref.session, attemptId, deps.limits.uploadLeaseMs);
  if (claimed) return { ...claimed, attemptId };
  throw (
    sessionProblem(await sessions.find(ref.session), now) ??
    conflict('STORAGE_UPLOAD_IN_PROGRESS', 'Another upload to this URL is in progress.')
  );
}

function sessionRefOf(
  deps: UploadDeps,
  token: string,
): { session: SessionRef; tokenExpiresAt?: number } | undefined {
  if (isLegacyToken(token)) return { session: { tokenSha256: hashUploadToken(token) } };
  const claims = deps.uploadTokens.open(token);
  return claims && { session: { id: claims.sessionId }, tokenExpiresAt: claims.expiresAt };
}

/**
 * Marks the session used, publishes the object (accepted archives only) and records the outcome,
 * in one transaction. Marking the session used locks its row, so the object appears under the
 * key only while this attempt provably holds the session: an attempt whose lease lapsed (and was
 * taken over) or whose session was revoked publishes nothing, and two attempts never both
 * publish. A crash after the publish and before the commit leaves an object nobody recorded,
 * which the next attempt replaces or the expiry sweep removes (ADR 0024).
 */
async function completeUpload(
  deps: UploadDeps,
  session: UploadSession,
  attemptId: string,
  outcome: UploadOutcome,
  writer: ObjectWriter,
  published: { value: boolean },
) {
  await deps.db.transaction(async (tx) => {
    if (!(await new SessionRepository(tx).markUsed(session.id, attemptId))) {
      // Its owner was deleted while the body streamed in (the session was revoked), or the hold
      // ran out and another attempt took over: either way this attempt must leave no trace.
      throw notFound('STORAGE_UPLOAD_NOT_FOUND');
    }
    if (outcome.ok) {
      await writer.publish();
      published.value = true;
      await new ObjectRepository(tx).upsert({
        key: session.objectKey,
        organization: session.organization,
        organizationId: session.organizationId,
        sizeBytes: outcome.sizeBytes,
        sha256: outcome.sha256,
        contentType: 'application/gzip',
        manifest: outcome.files,
      });
    }
    await enqueueUploadCompleted(tx, session, outcome);
  });
}

/**
 * Waits for every one of `work`, then throws the first failure in the order given (so which error
 * is reported does not depend on timing), or returns every result.
 */
async function allInOrder<T extends readonly unknown[]>(work: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(work);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * Iterates `source` but throws once `ms` have passed since the first chunk was asked for, or as
 * soon as `refusal` rejects (the organization check that runs while the body streams in).
 */
async function* withDeadline(
  source: AsyncIterable<Buffer>,
  ms: number,
  refusal: Promise<unknown>,
): AsyncGenerator<Buffer> {
  const iterator = source[Symbol.asyncIterator]();
  const deadline = Date.now() + ms;
  const refused = refusal.then(() => new Promise<never>(() => {}));
  refused.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  // While a read is pending (the race was lost to the deadline or the refusal), returning would
  // wait for that read: the source is then closed without waiting.
  let reading = false;
  try {
    while (true) {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              badRequest('STORAGE_UPLOAD_TIMEOUT', `the upload did not finish within ${formatDuration(ms)}`),
            ),
          Math.max(0, deadline - Date.now()),
        );
      });
      reading = true;
      const next = await Promise.race([iterator.next(), timeout, refused]);
      reading = false;
      clearTimeout(timer);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    const closed = iterator.return?.();
    if (reading) closed?.catch(() => {});
    else await closed;
  }
}
