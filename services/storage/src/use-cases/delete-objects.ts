import type { Queryable } from '@policyhub/db';
import { ObjectRepository } from '../db/object-repository.js';
import type { Deps } from '../deps.js';
import { requireKeyPrefix, requireObjectKey } from '../domain/object-keys.js';

/**
 * Deletes objects by key and by key prefix, from the store first and then their records, so a
 * failure part-way leaves records only for objects that may still exist. Missing ones are ignored.
 * `db` is the service's pool, or the transaction of a consumer that deletes an owner's objects.
 */
export async function deleteObjects(
  { store }: Pick<Deps, 'store'>,
  db: Queryable,
  request: { keys?: string[]; prefixes?: string[] },
): Promise<void> {
  const keys = (request.keys ?? []).map(requireObjectKey);
  const prefixes = (request.prefixes ?? []).map(requireKeyPrefix);
  if (keys.length > 0) await store.delete(keys);
  for (const prefix of prefixes) await store.deletePrefix(prefix);
  const objects = new ObjectRepository(db);
  await objects.deleteKeys(keys);
  for (const prefix of prefixes) await objects.deletePrefix(prefix);
}
