import * as grpc from '@grpc/grpc-js';
import { archiveLayout } from '@policyhub/contracts';
import { readServiceError } from '@policyhub/grpc-runtime';
import { declarationOf } from '../consumers/upload-completed.js';
import type { ArchiveDeclarations, StoredDeclaration } from '../domain/ports.js';
import type { PolicySetsClients } from './index.js';

/** What a stored version archive declares, read again by storage (ReadArchiveDeclaration). */
export class StorageArchiveDeclarations implements ArchiveDeclarations {
  constructor(private readonly clients: Pick<PolicySetsClients, 'storage'>) {}

  async read(request: Parameters<ArchiveDeclarations['read']>[0]): Promise<StoredDeclaration> {
    try {
      const answer = await this.clients.storage.ReadArchiveDeclaration({
        key: request.objectKey,
        layout: archiveLayout.fromKnownWord(request.layout),
        layoutRoot: request.layoutRoot,
      });
      if (answer.ok && answer.declaration)
        return { ok: true, declaration: declarationOf(answer.declaration) };
      return {
        ok: false,
        reason: `${answer.errorCode ?? 'STORAGE_ARCHIVE_CONFIG_MISSING'}: ${answer.errorMessage ?? 'storage read no declaration'}`,
      };
    } catch (err) {
      const { status, details } = readServiceError(err);
      if (status === grpc.status.NOT_FOUND) return { ok: false, reason: 'the archive is no longer stored' };
      throw new Error(`storage could not read the archive: ${details}`);
    }
  }
}
