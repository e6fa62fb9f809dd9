import type { Deps } from '../deps.js';
import { createUploadSession, type UploadSessionRequest } from './create-upload-session.js';
import { deleteObjects } from './delete-objects.js';
import { openObject } from './open-object.js';
import { putObject } from './put-object.js';
import { type ArchiveDeclarationRequest, readArchiveDeclaration } from './read-archive-declaration.js';
import { receiveUpload } from './receive-upload.js';
import { statObjects } from './stat-objects.js';

/**
 * The Storage API's use cases, each in its own file, bound to the service's Deps: rpc/ gets this
 * object and so reaches the store and the database only through a use case.
 */
export class StorageUseCases {
  constructor(private readonly deps: Deps) {}

  createUploadSession(request: UploadSessionRequest) {
    return createUploadSession(this.deps, request);
  }

  receiveUpload(token: string, body: AsyncIterable<Buffer>, isAbandoned: () => boolean) {
    return receiveUpload(this.deps, token, body, isAbandoned);
  }

  putObject(
    header: Parameters<typeof putObject>[1],
    body: AsyncIterable<Buffer>,
    isAbandoned: () => boolean,
  ) {
    return putObject(this.deps, header, body, isAbandoned);
  }

  openObject(key: string) {
    return openObject(this.deps, key);
  }

  statObjects(keys: readonly string[]) {
    return statObjects(this.deps, keys);
  }

  readArchiveDeclaration(request: ArchiveDeclarationRequest) {
    return readArchiveDeclaration(this.deps, request);
  }

  deleteObjects(request: { keys?: string[]; prefixes?: string[] }) {
    return deleteObjects(this.deps, this.deps.db, request);
  }
}
