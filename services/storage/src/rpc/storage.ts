import type * as grpc from '@grpc/grpc-js';
import {
  archiveLayout,
  type EnumMapping,
  fromTimestamp,
  type storageV1,
  toTimestamp,
  uploadOwnerKind,
} from '@policyhub/contracts';
import {
  type Handlers,
  headerThenData,
  type ImplementOptions,
  respond,
  serveStream,
  streaming,
} from '@policyhub/grpc-runtime';
import { declarationMessage } from './declarations.js';
import type { StorageUseCases } from '../use-cases/storage-use-cases.js';

/** Client streams of this service: a `header` message, then `data` chunks. */
const HEADER = { field: 'header', errorCode: 'STORAGE_INVALID_STREAM' } as const;

/**
 * The Storage gRPC service: translation only. Internal API: the gateway calls Upload with the
 * capability token from the public URL; other services call the rest without a principal.
 */
export function storageHandlers(
  storage: StorageUseCases,
  errorOptions: Pick<ImplementOptions, 'logger' | 'isUnavailable'>,
): Handlers<storageV1.StorageHandlers> {
  return {
    async CreateUploadSession(req) {
      const session = await storage.createUploadSession({
        organization: req.organization,
        organizationId: req.organizationId,
        ownerKind: wordOf(uploadOwnerKind, req.ownerKind),
        ownerId: req.ownerId,
        ownerParentId: req.ownerParentId,
        expiresAt: fromTimestamp(req.expiresAt)?.toISOString(),
        layout: req.layout === undefined ? '' : wordOf(archiveLayout, req.layout),
        layoutRoot: req.layoutRoot,
        createdBy: req.createdBy,
        requiredPermission: req.requiredPermission,
      });
      return {
        token: session.token,
        expiresAt: toTimestamp(session.expiresAt),
        objectKey: session.objectKey,
        sessionId: session.sessionId,
      };
    },

    Upload: streaming(
      (
        call: grpc.ServerReadableStream<storageV1.UploadRequest__Output, storageV1.UploadResponse>,
        callback: grpc.sendUnaryData<storageV1.UploadResponse>,
      ) =>
        respond(call, callback, 'Upload', errorOptions, async () => {
          const { first, data } = await headerThenData(call, HEADER);
          const { session, outcome } = await storage.receiveUpload(
            first.header?.token ?? '',
            data,
            () => call.cancelled,
          );
          const common = {
            ok: outcome.ok,
            ownerKind: uploadOwnerKind.fromKnownWord(session.ownerKind),
            ownerId: session.ownerId,
            sizeBytes: outcome.sizeBytes,
          };
          return outcome.ok
            ? { ...common, sha256: outcome.sha256 }
            : { ...common, errorCode: outcome.rejection.code, errorMessage: outcome.rejection.message };
        }),
    ),

    PutObject: streaming(
      (
        call: grpc.ServerReadableStream<storageV1.PutObjectRequest__Output, storageV1.PutObjectResponse>,
        callback: grpc.sendUnaryData<storageV1.PutObjectResponse>,
      ) =>
        respond(call, callback, 'PutObject', errorOptions, async () => {
          const { first, data } = await headerThenData(call, HEADER);
          return storage.putObject(
            {
              key: first.header?.key ?? '',
              contentType: first.header?.contentType,
              organizationId: first.header?.organizationId,
            },
            data,
            () => call.cancelled,
          );
        }),
    ),

    GetObject: streaming(
      (call: grpc.ServerWritableStream<storageV1.GetObjectRequest__Output, storageV1.GetObjectResponse>) =>
        serveStream(call, 'GetObject', errorOptions, () => storage.openObject(call.request.key)),
    ),

    async StatObjects(req) {
      return { objects: await storage.statObjects(req.keys) };
    },

    async DeleteObjects(req) {
      await storage.deleteObjects(req);
      return {};
    },

    async ReadArchiveDeclaration(req) {
      const answer = await storage.readArchiveDeclaration({
        key: req.key,
        layout: wordOf(archiveLayout, req.layout),
        layoutRoot: req.layoutRoot,
      });
      return answer.ok
        ? { ok: true, declaration: declarationMessage(answer.declaration) }
        : { ok: false, errorCode: answer.rejection.code, errorMessage: answer.rejection.message };
    },
  };
}

/**
 * The word of an enum value in a request; the zero value or an unknown number (a caller's bug)
 * becomes its name, which createUploadSession refuses as an invalid attribute.
 */
function wordOf(mapping: EnumMapping<string, string>, value: string | number): string {
  try {
    return mapping.toWord(String(value));
  } catch {
    return String(value);
  }
}
