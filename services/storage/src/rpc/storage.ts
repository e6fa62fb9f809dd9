import type * as grpc from '@grpc/grpc-js';
import {
  archiveLayout,
  type EnumMapping,
  fromTimestamp,
  type storageV1,
  toTimestamp,
  uploadOwnerKind,
} from '@policyhub/contracts';
import { notFound } from '@policyhub/errors';
import { asServiceError, type Handlers, streaming } from '@policyhub/grpc-runtime';
import type { ServiceDeps } from '@policyhub/service-kit';
import { ObjectRepository } from '../db/object-repository.js';
import { requireObjectKey } from '../domain/object-keys.js';
import type { OrganizationStatusLookup } from '../domain/organization-status.js';
import { leaseRenewalMs, type UploadLimits } from '../domain/upload-limits.js';
import { ObjectNotFoundError, type ObjectStore } from '../objects/object-store.js';
import { deleteObjects } from '../stored-objects/delete-objects.js';
import { putObject } from '../stored-objects/put-object.js';
import { createUploadSession } from '../uploads/create-upload-session.js';
import { receiveUpload } from '../uploads/receive-upload.js';
import { headerThenData, respond, streamTo } from './streams.js';

export interface StorageRpcDeps extends ServiceDeps {
  store: ObjectStore;
  organizations: OrganizationStatusLookup;
  limits: UploadLimits;
  stagingDir: string;
}

/**
 * The Storage gRPC service: translation only. Internal API: the gateway calls Upload with the
 * capability token from the public URL; other services call the rest without a principal.
 */
export function storageHandlers(deps: StorageRpcDeps): Handlers<storageV1.StorageHandlers> {
  const { db, store } = deps;
  const errorOptions = { logger: deps.logger, isUnavailable: deps.isUnavailable };

  return {
    async CreateUploadSession(req) {
      const session = await createUploadSession(db, {
        organization: req.organization,
        organizationId: req.organizationId,
        ownerKind: wordOf(uploadOwnerKind, req.ownerKind),
        ownerId: req.ownerId,
        ownerParentId: req.ownerParentId,
        expiresAt: fromTimestamp(req.expiresAt)?.toISOString(),
        layout: req.layout === undefined ? '' : wordOf(archiveLayout, req.layout),
        layoutRoot: req.layoutRoot,
      });
      return {
        token: session.token,
        expiresAt: toTimestamp(session.expiresAt),
        objectKey: session.objectKey,
      };
    },

    Upload: streaming(
      (
        call: grpc.ServerReadableStream<storageV1.UploadRequest__Output, storageV1.UploadResponse>,
        callback: grpc.sendUnaryData<storageV1.UploadResponse>,
      ) =>
        respond(call, callback, 'Upload', errorOptions, async () => {
          const { first, data } = await headerThenData(call);
          const { session, outcome } = await receiveUpload(
            deps,
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
          const { first, data } = await headerThenData(call);
          return putObject(
            {
              db,
              store,
              stagingDir: deps.stagingDir,
              maxObjectBytes: deps.limits.maxObjectBytes,
              stagingKeepAliveMs: leaseRenewalMs(deps.limits),
            },
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
      async (
        call: grpc.ServerWritableStream<storageV1.GetObjectRequest__Output, storageV1.GetObjectResponse>,
      ) => {
        try {
          const source = await store.get(requireObjectKey(call.request.key));
          await streamTo(call, source, (data) => ({ data }));
          call.end();
        } catch (err) {
          const mapped = err instanceof ObjectNotFoundError ? notFound('STORAGE_OBJECT_NOT_FOUND') : err;
          if (!call.cancelled) call.emit('error', asServiceError(mapped, 'GetObject', errorOptions));
        }
      },
    ),

    async StatObjects(req) {
      const keys = [...new Set(req.keys)].map(requireObjectKey);
      return { objects: await new ObjectRepository(db).stat(keys) };
    },

    async DeleteObjects(req) {
      await deleteObjects(db, store, req);
      return {};
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
