import { invalidAttribute } from '@policyhub/errors';

/**
 * Object keys are `/`-separated segments starting with the organization name, e.g.
 * `acme/policy-sets/polset-…/versions/polsetver-….tar.gz` or `acme/runs/run-…/plan.json`. The
 * organization prefix lets an organization's deletion remove everything it owns by prefix.
 */
const SEGMENT = /^[A-Za-z0-9_.-]+$/;
const ORGANIZATION = /^[A-Za-z0-9_-]+$/;
const MAX_KEY_LENGTH = 1024;

const invalidKey = (detail: string) => invalidAttribute('STORAGE_INVALID_KEY', '/key', detail);

/** Throws INVALID_ARGUMENT unless `key` is a safe object key (no `..`, no empty segments). */
export function requireObjectKey(key: string): string {
  if (!key || key.length > MAX_KEY_LENGTH)
    throw invalidKey(`object key must be 1..${MAX_KEY_LENGTH} characters`);
  const segments = key.split('/');
  if (segments.length < 2 || !ORGANIZATION.test(segments[0]!)) {
    throw invalidKey('object key must start with an organization name and a "/"');
  }
  if (segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..')) {
    throw invalidKey(
      'object key segments may only contain letters, digits, ".", "-" and "_" (and not be "." or "..")',
    );
  }
  return key;
}

/**
 * Throws unless `prefix` names at least a whole organization (`acme/`), so a deletion can never
 * reach across organizations or wipe the store.
 */
export function requireKeyPrefix(prefix: string): string {
  const slash = prefix.indexOf('/');
  if (slash <= 0 || !ORGANIZATION.test(prefix.slice(0, slash))) {
    throw invalidKey('a key prefix must start with an organization name and a "/"');
  }
  const rest = prefix.slice(slash + 1);
  if (rest !== '') {
    const segments = rest.split('/');
    const last = segments.pop()!;
    if (
      segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..') ||
      (last !== '' && !SEGMENT.test(last))
    ) {
      throw invalidKey('a key prefix may only contain letters, digits, ".", "-", "_" and "/"');
    }
  }
  return prefix;
}

export const organizationOf = (key: string): string => key.slice(0, key.indexOf('/'));

/** Where each kind of upload owner keeps its archive. */
export function uploadObjectKey(
  organization: string,
  ownerKind: string,
  ownerId: string,
  ownerParentId: string,
): string {
  switch (ownerKind) {
    case 'policy-set-version':
      if (!ownerParentId)
        throw invalidAttribute(
          'STORAGE_INVALID_SESSION',
          '/owner_parent_id',
          'a policy set version upload needs its policy set id',
        );
      return requireObjectKey(`${organization}/policy-sets/${ownerParentId}/versions/${ownerId}.tar.gz`);
    case 'configuration-version':
      if (!ownerParentId)
        throw invalidAttribute(
          'STORAGE_INVALID_SESSION',
          '/owner_parent_id',
          'a configuration version upload needs its workspace id',
        );
      return requireObjectKey(
        `${workspacePrefix(organization, ownerParentId)}configuration-versions/${ownerId}.tar.gz`,
      );
    default:
      throw invalidAttribute(
        'STORAGE_INVALID_SESSION',
        '/owner_kind',
        `unknown upload owner kind "${ownerKind}"`,
      );
  }
}

/** Prefix of everything storage keeps for a workspace (its configuration version archives). */
export const workspacePrefix = (organization: string, workspaceId: string): string =>
  `${organization}/workspaces/${workspaceId}/`;

/** Prefix of everything stored for a policy set (its version archives). */
export const policySetPrefix = (organization: string, policySetId: string): string =>
  `${organization}/policy-sets/${policySetId}/`;
