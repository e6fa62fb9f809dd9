import { contracts } from '@policyhub/contracts';
import { InProcessTransport } from '@policyhub/events';
import { createClient, type Principal, principalOf } from '@policyhub/grpc-runtime';
import type { RunningService } from '@policyhub/service-kit';
import { createLogger } from '@policyhub/telemetry';
import { createTestDatabase, type TestDatabase, testAuth, testSigningKeys } from '@policyhub/testing';
import type { ParameterKey } from '../../src/crypto/parameter-keys.js';
import { startPolicySets } from '../../src/index.js';

/** A fixed key for sealing sensitive parameters in tests (never used outside them). */
export const TEST_PARAMETER_KEY: ParameterKey = { id: 'test', key: Buffer.alloc(32, 7) };
import { type FakeTenancy, startFakeAdminOrgs } from './fake-admin-orgs.js';

/** A caller holding manage-policies in `organization` (whose id the fake admin-orgs reports). */
export const managerOf = (organization: string, organizationId = `org-id-${organization}`): Principal =>
  principalOf(
    { userId: 'user-test', username: 'tester', isSiteAdmin: false },
    [[organization, ['manage-policies']]],
    [[organization, organizationId]],
  );

/** policy-sets on a fresh database, with a fake admin-orgs and an in-process bus, plus clients. */
export async function startHarness(
  tenancy: FakeTenancy,
  options: { parameterKeys?: readonly ParameterKey[] } = {},
) {
  const db: TestDatabase = await createTestDatabase('ph_policy_sets');
  const adminOrgs = await startFakeAdminOrgs(tenancy);
  const transport = new InProcessTransport();
  const service: RunningService = await startPolicySets({
    databaseUrl: db.url,
    grpcAddress: '127.0.0.1:0',
    transport,
    logger: createLogger('policy-sets', 'silent'),
    adminOrgsAddress: adminOrgs.address,
    storageAddress: adminOrgs.address,
    signingKeys: testSigningKeys,
    parameterKeys: options.parameterKeys ?? [TEST_PARAMETER_KEY],
  });
  const { credential } = testAuth();
  const v1 = contracts().policyhub.policysets.v1;
  const clients = {
    policies: createClient(v1.Policies, service.address, credential),
    policySets: createClient(v1.PolicySets, service.address, credential),
    applicable: createClient(v1.ApplicablePolicySets, service.address, credential),
    parameters: createClient(v1.PolicySetParameters, service.address, credential),
  };
  return {
    db,
    service,
    transport,
    clients,
    async stop() {
      for (const c of Object.values(clients)) c.close();
      await service.close();
      await adminOrgs.close();
      await transport.close();
      await db.drop();
    },
  };
}
