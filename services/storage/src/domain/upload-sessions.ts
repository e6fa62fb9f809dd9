import { createHash } from 'node:crypto';
import { AppError, conflict, notFound } from '@policyhub/errors';
import type { ArchiveLayout } from './archive-layouts.js';

/**
 * An upload session as storage keeps it. Its URL's token is never stored: it is the session id
 * sealed with a derived key (ADR 0059); sessions opened before that keep only their random
 * token's SHA-256.
 */
export interface UploadSession {
  id: string;
  organization: string;
  /** The organization's immutable id ('' for sessions opened before ids existed). */
  organizationId: string;
  ownerKind: string;
  ownerId: string;
  ownerParentId: string;
  objectKey: string;
  /** The layout the archive must have, in `layoutRoot` (see archive-layouts.ts). */
  layout: ArchiveLayout;
  layoutRoot: string;
  /** Who opened the session ('' before this was recorded) and what they must still hold. */
  createdBy: string;
  /** A permission word re-checked with admin-orgs when the upload arrives; '' checks nothing. */
  requiredPermission: string;
  expiresAt: string;
  usedAt: string | null;
  /** Set when the sweeper settled the session: its URL expired without an upload. */
  expiredAt: string | null;
  /** An upload in progress holds the session with a lease it renews; a crashed one lapses here. */
  claimedUntil: string | null;
}

/** A session opened before sealed tokens is found by the SHA-256 of its random token. */
export const hashUploadToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The random tokens issued before sealed ones were exactly 43 base64url characters (256 bits);
 * sealed tokens are longer, so the shape tells them apart.
 */
export const isLegacyToken = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);

/**
 * Why a session cannot take an upload now (checked when the upload starts), or undefined when it
 * can. An unknown token is NOT_FOUND; expired and used ones are conflicts with a clear message.
 */
export function sessionProblem(session: UploadSession | undefined, now: Date): AppError | undefined {
  if (!session) return notFound('STORAGE_UPLOAD_NOT_FOUND');
  if (session.usedAt) {
    return conflict(
      'STORAGE_UPLOAD_ALREADY_USED',
      `This upload URL has already been used; create a new ${ownerNoun(session.ownerKind)} to upload again.`,
    );
  }
  if (session.expiredAt || Date.parse(session.expiresAt) <= now.getTime()) {
    return conflict(
      'STORAGE_UPLOAD_EXPIRED',
      `This upload URL expired at ${session.expiresAt}; create a new ${ownerNoun(session.ownerKind)} to upload again.`,
    );
  }
  if (session.claimedUntil && Date.parse(session.claimedUntil) > now.getTime()) {
    return conflict('STORAGE_UPLOAD_IN_PROGRESS', 'Another upload to this URL is in progress.');
  }
  return undefined;
}

/** The failed outcome recorded for a session whose URL expired without an upload. */
export const expiredSessionOutcome = (session: UploadSession) => ({
  ok: false as const,
  sizeBytes: 0,
  rejection: {
    code: 'STORAGE_UPLOAD_EXPIRED' as const,
    message: `The upload URL expired at ${session.expiresAt} without an upload; create a new ${ownerNoun(session.ownerKind)} to upload again.`,
  },
});

/** What a user creates to get a new upload URL, by owner kind. */
const ownerNoun = (ownerKind: string): string =>
  ownerKind === 'configuration-version' ? 'configuration version' : 'policy set version';

export const isUploadSessionError = (err: unknown): err is AppError =>
  err instanceof AppError && err.code.startsWith('STORAGE_UPLOAD_');
