import { ObjectRepository } from '../db/object-repository.js';
import type { Deps } from '../deps.js';
import { requireObjectKey } from '../domain/object-keys.js';

/** Size and SHA-256 of those of `keys` that are stored, in one query; missing keys are left out. */
export function statObjects({ db }: Pick<Deps, 'db'>, keys: readonly string[]) {
  return new ObjectRepository(db).stat([...new Set(keys)].map(requireObjectKey));
}
