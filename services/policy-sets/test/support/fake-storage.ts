import { randomBytes } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { contracts, fromTimestamp, type storageV1 } from '@policyhub/contracts';
import { notFound, unavailable } from '@policyhub/errors';
import {
  bindServer,
  createGrpcServer,
  implement,
  shutdownServer,
  UploadTokens,
} from '@policyhub/grpc-runtime';
import { testAuth, testSigningKeys } from '@policyhub/testing';

/**
 * Stands in for storage in component tests of policy-sets: hands out upload sessions and records
 * the requests; `down` makes it answer UNAVAILABLE. ReadArchiveDeclaration answers from
 * `archives` (by object key: the declaration storage's parser would read, or why the archive does
 * not conform), NOT_FOUND for any other key; storage's own component test reads real archives.
 */
export async function startFakeStorage() {
  const v1 = contracts().policyhub.storage.v1;
  const server: grpc.Server = createGrpcServer();
  const state = {
    down: false,
    sessions: [] as Array<
      storageV1.CreateUploadSessionRequest__Output & { token: string; sessionId: string }
    >,
    archives: new Map<string, storageV1.ReadArchiveDeclarationResponse>(),
    declarationReads: [] as storageV1.ReadArchiveDeclarationRequest__Output[],
  };
  server.addService(
    v1.Storage.service,
    implement(
      {
        CreateUploadSession: async (req: storageV1.CreateUploadSessionRequest__Output) => {
          if (state.down) throw unavailable('DEPENDENCY_UNAVAILABLE', 'storage is down');
          // As storage does: the session id sealed with the shared keys (ADR 0059).
          const sessionId = `upl-${randomBytes(8).toString('hex')}`;
          const token = new UploadTokens(testSigningKeys).mint(sessionId, fromTimestamp(req.expiresAt)!);
          state.sessions.push({ ...req, token, sessionId });
          return {
            token,
            sessionId,
            expiresAt: req.expiresAt,
            objectKey: `${req.organization}/policy-sets/${req.ownerParentId}/versions/${req.ownerId}.tar.gz`,
          };
        },
        ReadArchiveDeclaration: async (req: storageV1.ReadArchiveDeclarationRequest__Output) => {
          if (state.down) throw unavailable('DEPENDENCY_UNAVAILABLE', 'storage is down');
          state.declarationReads.push(req);
          const answer = state.archives.get(req.key);
          if (!answer) throw notFound('STORAGE_OBJECT_NOT_FOUND');
          return answer;
        },
      } as never,
      { logger: { error: () => {} }, auth: testAuth('storage') },
    ),
  );
  const address = await bindServer(server, '127.0.0.1:0');
  return { address, state, close: () => shutdownServer(server) };
}
