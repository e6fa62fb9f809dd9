import { generateSigningKeys, InternalAuth, type WorkerRole } from '@policyhub/grpc-runtime';

/** Signing keys shared by every service and client a test process starts. */
export const testSigningKeys = generateSigningKeys();

/** Worker tokens the test services accept (runs' EVALUATOR_TOKENS / EXECUTOR_TOKENS). */
export const testWorkerTokens: Record<WorkerRole, string> = {
  evaluator: `test-evaluator-${'e'.repeat(40)}`,
  executor: `test-executor-${'x'.repeat(40)}`,
};

/** Signs and verifies like a service (or the gateway) of this test process. */
export const testAuth = (service = 'gateway') =>
  new InternalAuth({
    keys: testSigningKeys,
    service,
    workerTokens: { evaluator: [testWorkerTokens.evaluator], executor: [testWorkerTokens.executor] },
  });
