import { type CodeOf, invalidAttribute } from '@policyhub/errors';
import type { Kind } from './vocabulary.js';

export type ReferenceKind = 'policy' | 'workspace' | 'project';

const LABEL: Record<ReferenceKind, string> = { policy: 'Policy', workspace: 'Workspace', project: 'Project' };
const CODE: Record<ReferenceKind, CodeOf<'invalid'>> = {
  policy: 'POLICY_SETS_POLICY_NOT_FOUND',
  workspace: 'POLICY_SETS_WORKSPACE_NOT_FOUND',
  project: 'POLICY_SETS_PROJECT_NOT_FOUND',
};

/** Every referenced id must exist in the set's organization (others are reported as not found). */
export function requireAllFound(
  kind: ReferenceKind,
  requested: readonly string[],
  found: ReadonlySet<string>,
  pointer: string,
) {
  const missing = requested.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw invalidAttribute(CODE[kind], pointer, `${LABEL[kind]} not found: ${missing.join(', ')}`);
  }
}

/** A set evaluates its policies with its own framework, so their kinds must match. */
export function requireSameKind(setKind: Kind, policyKinds: ReadonlyMap<string, Kind>, pointer: string) {
  const other = [...policyKinds].filter(([, kind]) => kind !== setKind).map(([id]) => id);
  if (other.length > 0) {
    throw invalidAttribute(
      'POLICY_SETS_POLICY_KIND_MISMATCH',
      pointer,
      `Policies of another kind cannot be added to a ${setKind} set: ${other.join(', ')}`,
    );
  }
}
