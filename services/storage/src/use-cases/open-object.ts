import type { Readable } from 'node:stream';
import { notFound } from '@policyhub/errors';
import type { Deps } from '../deps.js';
import { requireObjectKey } from '../domain/object-keys.js';
import { ObjectNotFoundError } from '../objects/object-store.js';

/** The bytes stored under `key`, as a stream; STORAGE_OBJECT_NOT_FOUND when there are none. */
export async function openObject({ store }: Pick<Deps, 'store'>, key: string): Promise<Readable> {
  try {
    return await store.get(requireObjectKey(key));
  } catch (err) {
    throw err instanceof ObjectNotFoundError ? notFound('STORAGE_OBJECT_NOT_FOUND') : err;
  }
}
