import { documented as doc, env } from '@policyhub/config';
import { fileURLToPath } from 'node:url';
import type { EventTransport } from '@policyhub/events';
import {
  InternalAuth,
  parseWorkerTokens,
  type SigningKey,
  UploadTokens,
  type WorkerRole,
} from '@policyhub/grpc-runtime';
import {
  type DatabaseTimeouts,
  type RunningService,
  type ServiceDeps,
  startGrpcService,
} from '@policyhub/service-kit';
import type { Logger } from '@policyhub/telemetry';
import { grpcObjectStore } from './clients/object-store.js';
import { grpcObjectStreams } from './clients/object-streams.js';
import { grpcPermissionCheck } from './clients/permission-check.js';
import { grpcPolicySetSource } from './clients/policy-set-source.js';
import { grpcUploadSessions } from './clients/upload-sessions.js';
import { grpcWorkspaceDirectory } from './clients/workspace-directory.js';
import { startDeletionConsumer } from './consumers/deletions.js';
import { startUploadCompletedConsumer } from './consumers/upload-completed.js';
import type { Deps } from './deps.js';
import { DEFAULT_PLAN_MAX_BYTES } from './domain/plan-status.js';
import { PlanLogTokens } from './domain/plan-log-token.js';
import type {
  ObjectStore,
  ObjectStreams,
  PermissionCheck,
  PolicySetSource,
  UploadSessions,
  WorkspaceDirectory,
} from './domain/ports.js';
import { registerRuns } from './server.js';
import { ObjectSweeper } from './use-cases/object-sweeper.js';

export interface RunsOptions {
  databaseUrl: string;
  grpcAddress: string;
  transport: EventTransport;
  logger: Logger;
  /** Keys of internal call assertions (the first signs). */
  signingKeys: readonly SigningKey[];
  /** Bearer tokens accepted from evaluators (PolicyEvaluator API) and executors (RunExecutor API). */
  workerTokens?: Partial<Record<WorkerRole, readonly string[]>>;
  /** admin-orgs (workspaces), policy-sets (applicable sets) and storage (plan JSON, archives). */
  adminOrgsAddress: string;
  policySetsAddress: string;
  storageAddress: string;
  /** Replaces a gRPC adapter (component tests use fakes for services they do not start). */
  ports?: {
    workspaces?: WorkspaceDirectory;
    policySets?: PolicySetSource;
    objects?: ObjectStore;
    streams?: ObjectStreams;
    uploadSessions?: UploadSessions;
    permissions?: PermissionCheck;
  };
  /** Largest plan JSON accepted over HTTP (PLAN_MAX_BYTES; default 100 MiB). */
  planMaxBytes?: number;
  /** Statement and connect timeouts of the service's pool (default: the pool's). */
  databaseTimeouts?: DatabaseTimeouts | undefined;
  migrateOnly?: boolean;
}

export const RUNS_SCHEMA = 'runs';

/** The runs service's own variables (besides the shared ones); embedded mode reads them too. */
export const runsConfigShape = {
  PLAN_MAX_BYTES: doc(
    env.int(DEFAULT_PLAN_MAX_BYTES, 1),
    "largest plan JSON taken by `PUT /plans/:id/json-output` (larger: 413; keep it ≤ storage's `OBJECT_MAX_BYTES`)",
    '`104857600` (100 MiB)',
  ),
};

/** Everything the runs process reads besides the shared service variables. */
export const runsProcessConfigShape = {
  ADMIN_ORGS_ADDR: doc(env.address('127.0.0.1:50051'), 'admin-orgs gRPC'),
  POLICY_SETS_ADDR: doc(env.address('127.0.0.1:50052'), 'policy-sets gRPC'),
  STORAGE_ADDR: doc(env.address('127.0.0.1:50054'), 'storage gRPC'),
  EVALUATOR_TOKENS: doc(
    env.parsed(parseWorkerTokens).optional(),
    'evaluator tokens (≥ 32 characters, comma-separated during a rotation) accepted on the `PolicyEvaluator` API only',
    'unset: no evaluator can connect (a warning at start)',
  ),
  EXECUTOR_TOKENS: doc(
    env.parsed(parseWorkerTokens).optional(),
    'executor tokens accepted on the `RunExecutor` API only',
    'unset: the executor API refuses every call',
  ),
  ...runsConfigShape,
};

export function startRuns(options: RunsOptions): Promise<RunningService> {
  const auth = new InternalAuth({
    keys: options.signingKeys,
    service: 'runs',
    workerTokens: options.workerTokens,
  });
  const adapters = {
    workspaces: grpcWorkspaceDirectory(options.adminOrgsAddress, auth.credential),
    policySets: grpcPolicySetSource(options.policySetsAddress, auth.credential),
    objects: grpcObjectStore(options.storageAddress, auth.credential),
    streams: grpcObjectStreams(options.storageAddress, auth.credential),
    uploadSessions: grpcUploadSessions(options.storageAddress, auth.credential),
    permissions: grpcPermissionCheck(options.adminOrgsAddress, auth.credential),
  };
  const ports = {
    workspaces: options.ports?.workspaces ?? adapters.workspaces,
    policySets: options.ports?.policySets ?? adapters.policySets,
    objects: options.ports?.objects ?? adapters.objects,
    streams: options.ports?.streams ?? adapters.streams,
    uploadSessions: options.ports?.uploadSessions ?? adapters.uploadSessions,
    permissions: options.ports?.permissions ?? adapters.permissions,
  };
  const logTokens = new PlanLogTokens(options.signingKeys);
  const uploadTokens = new UploadTokens(options.signingKeys);
  let sweeper: ObjectSweeper | undefined;
  // The use cases' Deps, built once from the pool startGrpcService opens (onStart is the first
  // hook that has it).
  let deps: Deps | undefined;
  const depsOf = ({ db }: ServiceDeps): Deps => {
    deps ??= {
      db,
      ...ports,
      logTokens,
      uploadTokens,
      planMaxBytes: options.planMaxBytes ?? DEFAULT_PLAN_MAX_BYTES,
      onObjectsOrphaned: () => sweeper?.schedule(),
    };
    return deps;
  };
  const closeAdapters = () => {
    for (const adapter of Object.values(adapters)) adapter.close();
  };
  return startGrpcService({
    name: 'runs',
    schema: RUNS_SCHEMA,
    databaseUrl: options.databaseUrl,
    migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
    grpcAddress: options.grpcAddress,
    transport: options.transport,
    logger: options.logger,
    auth,
    databaseTimeouts: options.databaseTimeouts,
    migrateOnly: options.migrateOnly,
    async onStart(service) {
      sweeper = new ObjectSweeper({ ...depsOf(service), logger: service.logger });
      sweeper.start();
    },
    register: (server, service) => registerRuns(server, service, depsOf(service)),
    consumers: async (service) => [
      await startDeletionConsumer(service, depsOf(service)),
      await startUploadCompletedConsumer(service),
    ],
    async onClose() {
      await sweeper?.stop();
      closeAdapters();
    },
  }).catch((err: unknown) => {
    closeAdapters();
    throw err;
  });
}
