// The enum tables of proto/policyhub/storage (see ../enum-mapping.ts). One exported mapping per enum,
// named after the enum in lowerCamelCase (e.g. `export const policySetKind = enumMapping(...)`).
import { type EnumWords, enumMapping } from '../enum-mapping.js';
import type {
  ArchiveLayout__Output,
  UploadOwnerKind__Output,
} from '../generated/policyhub/storage/v1/index.js';

/** What an upload belongs to: the word is the owner's resource type, as storage records it. */
export const uploadOwnerKind = enumMapping('UploadOwnerKind', {
  UPLOAD_OWNER_KIND_POLICY_SET_VERSION: 'policy-set-version',
  UPLOAD_OWNER_KIND_CONFIGURATION_VERSION: 'configuration-version',
} as const satisfies EnumWords<UploadOwnerKind__Output>);

/** The layout an uploaded archive must have (unset: any archive). */
export const archiveLayout = enumMapping('ArchiveLayout', {
  ARCHIVE_LAYOUT_SENTINEL: 'sentinel',
  ARCHIVE_LAYOUT_OPA: 'opa',
} as const satisfies EnumWords<ArchiveLayout__Output>);

/**
 * The owner kind of a `storage.upload-completed` event, also of one written by a release before
 * the enum (its word under the deprecated field 4, ADR 0035); `undefined` when neither is known.
 */
export function uploadCompletedOwnerKind(event: {
  ownerKind: UploadOwnerKind__Output;
  legacyOwnerKind?: string;
}): Exclude<UploadOwnerKind__Output, 'UPLOAD_OWNER_KIND_UNSPECIFIED'> | undefined {
  if (event.ownerKind !== 'UPLOAD_OWNER_KIND_UNSPECIFIED') return event.ownerKind;
  return event.legacyOwnerKind ? uploadOwnerKind.fromWord(event.legacyOwnerKind) : undefined;
}
