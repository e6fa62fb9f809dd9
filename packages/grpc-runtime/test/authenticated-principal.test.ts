import * as grpc from '@grpc/grpc-js';
import { type adminorgsV1, organizationPermission } from '@policyhub/contracts';
import { PERMISSIONS } from '@policyhub/permissions';
import { describe, expect, it } from 'vitest';
import { principalFromProto } from '../src/authenticated-principal.js';
import { InternalAuth, generateSigningKeys } from '../src/internal-auth.js';

const answer: adminorgsV1.Principal__Output = {
  userId: 'user-1',
  username: 'una',
  isSiteAdmin: false,
  memberships: [
    {
      organization: 'acme',
      organizationId: 'org-acme',
      permissions: ['ORGANIZATION_PERMISSION_READ_RUNS', 'ORGANIZATION_PERMISSION_MANAGE_POLICIES'],
      isOwner: true,
    },
    { organization: 'beta', organizationId: 'org-beta', permissions: [], isOwner: false },
  ],
  tokenExpiredAt: null,
  kind: 'PRINCIPAL_KIND_USER',
};

describe('the principal of an Authenticate answer', () => {
  it('knows exactly the permissions the permission model checks', () => {
    expect([...organizationPermission.words].sort()).toEqual([...PERMISSIONS].sort());
  });

  it('carries permission words, and `owners` for an owner, with each organization id', () => {
    const p = principalFromProto(answer);
    expect(p.memberships.get('acme')).toEqual(['read-runs', 'manage-policies', 'owners']);
    expect(p.memberships.get('beta')).toEqual([]);
    expect(p.organizationIds?.get('acme')).toBe('org-acme');
  });

  it('is signed by one process and verified by another as the same principal', () => {
    const keys = generateSigningKeys();
    const signer = new InternalAuth({ keys, service: 'gateway' });
    const verifier = new InternalAuth({ keys, service: 'runs' });
    const p = principalFromProto(answer);
    const metadata = new grpc.Metadata();
    signer.credential.apply(metadata, p);
    const caller = verifier.authenticate(metadata);
    expect(caller).toMatchObject({ kind: 'user', service: 'gateway' });
    expect(caller?.kind === 'user' ? caller.principal : undefined).toEqual(p);
  });

  it('keeps a team or organization token’s kind through signing', () => {
    const keys = generateSigningKeys();
    const signer = new InternalAuth({ keys, service: 'gateway' });
    const verifier = new InternalAuth({ keys, service: 'runs' });
    for (const kind of ['PRINCIPAL_KIND_TEAM', 'PRINCIPAL_KIND_ORGANIZATION'] as const) {
      const p = principalFromProto({ ...answer, kind });
      expect(p.kind).toBe(kind === 'PRINCIPAL_KIND_TEAM' ? 'team' : 'organization');
      const metadata = new grpc.Metadata();
      signer.credential.apply(metadata, p);
      const caller = verifier.authenticate(metadata);
      expect(caller?.kind === 'user' ? caller.principal : undefined).toEqual(p);
    }
    expect(principalFromProto(answer).kind).toBeUndefined();
  });
});
