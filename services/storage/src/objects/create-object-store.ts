import { FilesystemObjectStore } from './filesystem-store.js';
import type { ObjectStore } from './object-store.js';
import { type S3Settings, S3ObjectStore } from './s3-store.js';

export type ObjectStoreSettings = ({ kind: 's3' } & S3Settings) | { kind: 'filesystem'; root: string };

/** The object store a composition root should use: S3 when configured, else the file system. */
export async function createObjectStore(settings: ObjectStoreSettings): Promise<ObjectStore> {
  if (settings.kind === 's3') return S3ObjectStore.connect(settings);
  return new FilesystemObjectStore(settings.root);
}
