import { createHash } from 'node:crypto';
import { notFound } from '@policyhub/errors';
import type {
  ObjectStore,
  PolicySetSnapshot,
  PolicySetSource,
  SetParameter,
  WorkspaceDirectory,
  WorkspaceInfo,
} from '@policyhub/runs';

/**
 * In-memory stand-ins for admin-orgs, policy-sets and storage, so component tests exercise the
 * runs service (its gRPC API, SQL and lifecycle) without starting the services it calls. The
 * end-to-end tests (e2e/) cover the real ones.
 */
/** The organization id fake admin-orgs reports for a name (principals built with `memberOf` carry it). */
export const organizationIdOf = (organization: string): string => `org-id-${organization}`;

export class FakeWorkspaces implements WorkspaceDirectory {
  readonly workspaces = new Map<string, WorkspaceInfo>();

  /** A workspace of `organization`, whose immutable id is `organizationIdOf(organization)` unless given. */
  add(
    id: string,
    organization: string,
    projectId = 'prj-default',
    organizationId = organizationIdOf(organization),
  ): WorkspaceInfo {
    const ws = { id, organization, organizationId, projectId };
    this.workspaces.set(id, ws);
    return ws;
  }

  async getWorkspace(id: string) {
    return this.workspaces.get(id);
  }
}

export class FakePolicySets implements PolicySetSource {
  /** Sets per workspace id; what policy-sets' GetApplicablePolicySets would return (kind_a only). */
  readonly byWorkspace = new Map<string, PolicySetSnapshot[]>();

  /** Parameters per set id; what GetPolicySetParameterValues would return. */
  readonly parameters = new Map<string, SetParameter[]>();
  /** Every parameterValues call (organization name and set ids), in order. */
  readonly parameterCalls: Array<{ organization: string; policySetIds: string[] }> = [];

  async applicableSets(workspace: WorkspaceInfo) {
    return this.byWorkspace.get(workspace.id) ?? [];
  }

  /** What parameterValues throws instead, when set (policy-sets' error as runs' client rethrows it). */
  parameterError: Error | undefined;

  async parameterValues(organization: { name: string }, policySetIds: readonly string[]) {
    this.parameterCalls.push({ organization: organization.name, policySetIds: [...policySetIds] });
    if (this.parameterError) throw this.parameterError;
    return new Map(
      policySetIds.flatMap((id) => (this.parameters.has(id) ? [[id, this.parameters.get(id)!]] : [])),
    );
  }
}

export class FakeObjects implements ObjectStore {
  readonly objects = new Map<string, Buffer>();
  readonly deletedPrefixes: string[] = [];
  /** Every key opened, in order (what runs read of stored objects). */
  readonly opened: string[] = [];

  async put(key: string, bytes: Buffer) {
    this.objects.set(key, Buffer.from(bytes));
  }

  async get(key: string) {
    return this.objects.get(key);
  }

  async stat(keys: string[]) {
    return keys.flatMap((key) => {
      const bytes = this.objects.get(key);
      return bytes
        ? [{ key, sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }]
        : [];
    });
  }

  async *open(key: string) {
    this.opened.push(key);
    const bytes = this.objects.get(key);
    if (!bytes) throw notFound('RUNS_OBJECT_NOT_FOUND');
    for (let offset = 0; offset < bytes.length; offset += 64 * 1024)
      yield bytes.subarray(offset, offset + 64 * 1024);
  }

  async deletePrefixes(prefixes: string[]) {
    this.deletedPrefixes.push(...prefixes);
    for (const key of [...this.objects.keys()]) {
      if (prefixes.some((p) => key.startsWith(p))) this.objects.delete(key);
    }
  }
}

export function policySet(
  id: string,
  policies: Array<[name: string, level: 'advisory' | 'soft-mandatory' | 'hard-mandatory']>,
): PolicySetSnapshot {
  return {
    id,
    name: `set-${id}`,
    kind: 'kind_a',
    policies: policies.map(([name, enforcementLevel]) => ({
      id: `pol-${name}`,
      name,
      enforcementLevel,
      code: `# ${name}`,
    })),
    archiveObjectKey: '',
    versionId: '',
  };
}
