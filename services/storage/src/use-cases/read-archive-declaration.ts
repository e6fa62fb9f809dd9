import { invalidAttribute, notFound } from '@policyhub/errors';
import { ArchiveInspector } from '../archives/archive-inspector.js';
import type { Deps } from '../deps.js';
import { type ArchiveDeclaration, isArchiveLayout } from '../domain/archive-layouts.js';
import type { ArchiveRejection } from '../domain/archive-rejections.js';
import { normalisePath } from '../domain/archive-rules.js';
import { requireObjectKey } from '../domain/object-keys.js';
import { ObjectNotFoundError } from '../objects/object-store.js';

export interface ArchiveDeclarationRequest {
  key: string;
  /** 'sentinel' or 'opa' ('' or anything else is refused: there would be nothing to read). */
  layout: string;
  layoutRoot: string;
}

/** The verdict: what the archive declares, or why it does not conform. */
export type ArchiveDeclarationAnswer =
  | { ok: true; declaration: ArchiveDeclaration }
  | { ok: false; rejection: ArchiveRejection };

/**
 * Reads a stored archive again with exactly the checks and limits of an upload (the archive
 * inspector, streaming from the object store, nothing buffered) and answers its verdict: what the
 * layout's configuration file declares, or why the archive does not conform. For archives stored
 * before declarations were recorded with their owners (docs/adr/0057). Nothing is written.
 * STORAGE_OBJECT_NOT_FOUND when the object is absent.
 */
export async function readArchiveDeclaration(
  { store, limits }: Pick<Deps, 'store' | 'limits'>,
  request: ArchiveDeclarationRequest,
): Promise<ArchiveDeclarationAnswer> {
  const key = requireObjectKey(request.key);
  const layout = request.layout;
  if (layout === '' || !isArchiveLayout(layout)) {
    throw invalidAttribute(
      'STORAGE_INVALID_LAYOUT',
      '/layout',
      'layout must be ARCHIVE_LAYOUT_SENTINEL or ARCHIVE_LAYOUT_OPA',
    );
  }
  const root = normalisePath(request.layoutRoot);
  if (typeof root !== 'string') {
    throw invalidAttribute(
      'STORAGE_INVALID_LAYOUT',
      '/layout_root',
      'layout_root must be a relative path inside the archive',
    );
  }
  const body = await store.get(key).catch((err: unknown) => {
    throw err instanceof ObjectNotFoundError ? notFound('STORAGE_OBJECT_NOT_FOUND') : err;
  });
  const inspector = new ArchiveInspector(limits, { layout, root });
  try {
    for await (const chunk of body) {
      await inspector.write(chunk as Buffer);
      if (inspector.isOverLimit || inspector.rejected) break;
    }
  } catch (err) {
    inspector.abort();
    throw err;
  } finally {
    body.destroy();
  }
  const inspection = await inspector.finish();
  if (!inspection.ok) {
    return { ok: false, rejection: inspection.rejection };
  }
  // A layout was required, so an archive that conforms always has a declaration.
  if (!inspection.declaration) throw new Error('the layout check read no declaration');
  return { ok: true, declaration: inspection.declaration };
}
