import { invalidAttribute, newId } from '@policyhub/errors';
import { PERMISSIONS } from '@policyhub/permissions';
import { SessionRepository } from '../db/session-repository.js';
import type { Deps } from '../deps.js';
import { isArchiveLayout } from '../domain/archive-layouts.js';
import { normalisePath } from '../domain/archive-rules.js';
import { uploadObjectKey } from '../domain/object-keys.js';

export interface UploadSessionRequest {
  organization: string;
  /** The organization's immutable id; its deletion revokes the session and removes the archive. */
  organizationId?: string;
  ownerKind: string;
  ownerId: string;
  ownerParentId: string;
  /** RFC 3339; uploads are refused from then on. Required (undefined is refused). */
  expiresAt: string | undefined;
  /** '' (any archive), 'sentinel' or 'opa' (anything else is refused). */
  layout?: string | undefined;
  /** The directory inside the archive that holds the layout; '' = the root. */
  layoutRoot?: string | undefined;
  /** The principal's user id that opens the session; with `requiredPermission`, re-checked per upload. */
  createdBy?: string | undefined;
  /** A permission word the creator must still hold when the upload arrives; '' checks nothing. */
  requiredPermission?: string | undefined;
}

/**
 * Opens a single-use upload session. Nothing secret is kept: the token answered (and any the owner
 * mints later from the session id) is the session id and expiry sealed with a key derived from
 * INTERNAL_SIGNING_KEYS (ADR 0059).
 */
export async function createUploadSession(
  deps: Pick<Deps, 'db' | 'uploadTokens'>,
  req: UploadSessionRequest,
) {
  const expires = Date.parse(req.expiresAt ?? '');
  if (Number.isNaN(expires)) {
    throw invalidAttribute(
      'STORAGE_INVALID_SESSION',
      '/expires_at',
      'expires_at must be an RFC 3339 timestamp',
    );
  }
  if (!/^[A-Za-z0-9_.-]+$/.test(req.ownerId)) {
    throw invalidAttribute('STORAGE_INVALID_SESSION', '/owner_id', 'owner_id must be an identifier');
  }
  if (req.ownerParentId && !/^[A-Za-z0-9_.-]+$/.test(req.ownerParentId)) {
    throw invalidAttribute(
      'STORAGE_INVALID_SESSION',
      '/owner_parent_id',
      'owner_parent_id must be an identifier',
    );
  }
  const layout = req.layout ?? '';
  if (!isArchiveLayout(layout)) {
    throw invalidAttribute(
      'STORAGE_INVALID_SESSION',
      '/layout',
      'layout must be ARCHIVE_LAYOUT_SENTINEL, ARCHIVE_LAYOUT_OPA or unset (any archive)',
    );
  }
  const layoutRoot = normalisePath(req.layoutRoot ?? '');
  if (typeof layoutRoot !== 'string') {
    throw invalidAttribute(
      'STORAGE_INVALID_SESSION',
      '/layout_root',
      'layout_root must be a relative path inside the archive',
    );
  }
  const requiredPermission = req.requiredPermission ?? '';
  if (requiredPermission && !(PERMISSIONS as readonly string[]).includes(requiredPermission)) {
    throw invalidAttribute(
      'STORAGE_INVALID_SESSION',
      '/required_permission',
      'required_permission must be a permission word or unset',
    );
  }
  if (requiredPermission && !req.createdBy) {
    throw invalidAttribute(
      'STORAGE_INVALID_SESSION',
      '/created_by',
      'created_by is required with required_permission',
    );
  }
  const objectKey = uploadObjectKey(req.organization, req.ownerKind, req.ownerId, req.ownerParentId);
  const id = newId('upl');
  const expiresAt = new Date(expires).toISOString();
  await new SessionRepository(deps.db).insert({
    id,
    organization: req.organization,
    organizationId: req.organizationId ?? '',
    ownerKind: req.ownerKind,
    ownerId: req.ownerId,
    ownerParentId: req.ownerParentId,
    objectKey,
    layout,
    layoutRoot,
    expiresAt,
    createdBy: req.createdBy ?? '',
    requiredPermission,
  });
  return { token: deps.uploadTokens.mint(id, expiresAt), sessionId: id, expiresAt, objectKey };
}
