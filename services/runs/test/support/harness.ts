import { contracts } from '@policyhub/contracts';
import { InProcessTransport } from '@policyhub/events';
import {
  type ClientCredential,
  createClient,
  type Principal,
  principalOf,
  workerCredential,
} from '@policyhub/grpc-runtime';
import { startRuns } from '@policyhub/runs';
import type { RunningService } from '@policyhub/service-kit';
import { createLogger } from '@policyhub/telemetry';
import {
  createTestDatabase,
  type TestDatabase,
  testAuth,
  testSigningKeys,
  testWorkerTokens,
} from '@policyhub/testing';
import { FakeObjects, FakePolicySets, FakeWorkspaces } from './fakes.js';

export interface RunsHarness {
  service: RunningService;
  transport: InProcessTransport;
  workspaces: FakeWorkspaces;
  policySets: FakePolicySets;
  objects: FakeObjects;
  runs: ReturnType<typeof clientsFor>['runs'];
  comments: ReturnType<typeof clientsFor>['comments'];
  checks: ReturnType<typeof clientsFor>['checks'];
  stages: ReturnType<typeof clientsFor>['stages'];
  executor: ReturnType<typeof clientsFor>['executor'];
  evaluator: ReturnType<typeof clientsFor>['evaluator'];
  stop(): Promise<void>;
}

function clientsFor(address: string) {
  const v1 = contracts().policyhub.runs.v1;
  const gateway: ClientCredential = testAuth().credential;
  return {
    runs: createClient(v1.Runs, address, gateway),
    comments: createClient(v1.Comments, address, gateway),
    checks: createClient(v1.PolicyChecks, address, gateway),
    stages: createClient(v1.TaskStages, address, gateway),
    executor: createClient(v1.RunExecutor, address, workerCredential(testWorkerTokens.executor)),
    evaluator: createClient(v1.PolicyEvaluator, address, workerCredential(testWorkerTokens.evaluator)),
  };
}

/** The runs service on a fresh database, with fakes for the services it calls (see fakes.ts). */
export async function startRunsHarness(): Promise<RunsHarness> {
  const db: TestDatabase = await createTestDatabase('ph_runs');
  const transport = new InProcessTransport();
  const workspaces = new FakeWorkspaces();
  const policySets = new FakePolicySets();
  const objects = new FakeObjects();
  const unused = '127.0.0.1:1';
  const service = await startRuns({
    databaseUrl: db.url,
    grpcAddress: '127.0.0.1:0',
    transport,
    logger: createLogger('runs', process.env.TEST_LOG_LEVEL ?? 'silent'),
    adminOrgsAddress: unused,
    policySetsAddress: unused,
    storageAddress: unused,
    ports: { workspaces, policySets, objects },
    signingKeys: testSigningKeys,
    workerTokens: { evaluator: [testWorkerTokens.evaluator], executor: [testWorkerTokens.executor] },
  });
  const clients = clientsFor(service.address);
  return {
    service,
    transport,
    workspaces,
    policySets,
    objects,
    ...clients,
    async stop() {
      for (const c of Object.values(clients)) c.close();
      await service.close();
      await transport.close();
      await db.drop();
    },
  };
}

/** A caller with exactly `permissions` in `organization`. */
export const member = (
  organization: string,
  permissions: string[],
  userId = 'user-member',
  organizationId = `org-id-${organization}`,
): { principal: Principal } => ({
  principal: principalOf(
    { userId, username: userId, isSiteAdmin: false },
    [[organization, permissions]],
    [[organization, organizationId]],
  ),
});

export const OWNER_PERMISSIONS = [
  'manage-policies',
  'manage-policy-overrides',
  'manage-workspaces',
  'manage-projects',
  'read-workspaces',
  'read-runs',
  'owners',
];

export const owner = (organization: string, userId = 'user-owner', organizationId?: string) =>
  member(organization, OWNER_PERMISSIONS, userId, organizationId);

export const plan = (resourceTypes: string[] = []) =>
  Buffer.from(
    JSON.stringify({
      format_version: '1.2',
      resource_changes: resourceTypes.map((type, i) => ({
        address: `${type}.r${i}`,
        type,
        change: { actions: ['create'] },
      })),
    }),
  );
