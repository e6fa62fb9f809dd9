import { Writable } from 'node:stream';
import { contracts } from '@policyhub/contracts';
import { InProcessTransport } from '@policyhub/events';
import { createClient, workerCredential } from '@policyhub/grpc-runtime';
import { startRuns } from '@policyhub/runs';
import type { RunningService } from '@policyhub/service-kit';
import { createLogger } from '@policyhub/telemetry';
import {
  createTestDatabase,
  freePort,
  type TestDatabase,
  testAuth,
  testSigningKeys,
  testWorkerTokens,
  waitFor,
} from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvaluatorWorker } from '../src/evaluator/worker.js';
import { FakeObjects, FakePolicySets, FakeWorkspaces, policySet } from './support/fakes.js';
import { owner, plan } from './support/harness.js';

/**
 * The evaluator worker against a runs server that is stopped and started again on the same
 * address (a restart of `npm start` or of the runs pod): the worker keeps its channel and claims
 * checks from the new server by itself. The services runs calls are fakes (support/fakes.ts).
 */
describe('evaluator worker across a runs restart', () => {
  let db: TestDatabase;
  let address: string;
  let runs: RunningService | undefined;
  let worker: EvaluatorWorker;
  const transport = new InProcessTransport();
  const workspaces = new FakeWorkspaces();
  const policySets = new FakePolicySets();
  const objects = new FakeObjects();
  const failures: string[] = [];

  const startRunsServer = () =>
    startRuns({
      databaseUrl: db.url,
      grpcAddress: address,
      transport,
      logger: createLogger('runs', 'silent'),
      adminOrgsAddress: '127.0.0.1:1',
      policySetsAddress: '127.0.0.1:1',
      storageAddress: '127.0.0.1:1',
      ports: { workspaces, policySets, objects },
      signingKeys: testSigningKeys,
      workerTokens: { evaluator: [testWorkerTokens.evaluator], executor: [testWorkerTokens.executor] },
    });

  beforeAll(async () => {
    db = await createTestDatabase('ph_runs_reconnect');
    address = `127.0.0.1:${await freePort()}`;
    runs = await startRunsServer();
    const log = new Writable({
      write(chunk, _encoding, done) {
        const line = JSON.parse(chunk.toString()) as { msg: string };
        if (line.msg === 'evaluator cycle failed; retrying') failures.push(line.msg);
        done();
      },
    });
    worker = new EvaluatorWorker({
      runsAddress: address,
      token: testWorkerTokens.evaluator,
      // An engine that always fails: the worker reports the check `errored`, which is enough to
      // see that it claimed it.
      engines: {
        command: [process.execPath, '-e', 'process.exit(3)'],
        sentinel: undefined,
        sentinelProblem: 'not used: the generic command above takes every check',
      },
      evaluatorId: 'reconnect-test',
      pollIntervalMs: 50,
      leaseSeconds: 30,
      timeoutMs: 10_000,
      logger: createLogger('evaluator', 'info', log),
    });
    worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await runs?.close();
    await transport.close();
    await db?.drop();
  });

  let n = 0;
  /** A queued policy check on the current runs server; resolves to a function reading its status. */
  async function queuedCheck() {
    const v1 = contracts().policyhub.runs.v1;
    const gateway = testAuth().credential;
    const runsApi = createClient(v1.Runs, address, gateway);
    const executor = createClient(v1.RunExecutor, address, workerCredential(testWorkerTokens.executor));
    const checks = createClient(v1.PolicyChecks, address, gateway);
    const ws = workspaces.add(`ws-reconnect-${++n}`, 'acme');
    policySets.byWorkspace.set(ws.id, [policySet(`polset-reconnect-${n}`, [['rule', 'hard-mandatory']])]);
    const { run } = await runsApi.CreateRun({ workspaceId: ws.id, planOnly: false }, owner('acme'));
    const planned = await executor.ReportPlanFinished({ runId: run!.id, planJson: plan(['aws_s3_bucket']) });
    const checkId = planned.run!.policyCheckIds[0]!;
    const status = async () =>
      (await checks.GetPolicyCheck({ id: checkId }, owner('acme'))).policyCheck!.status;
    return {
      status,
      close: () => {
        for (const c of [runsApi, executor, checks]) c.close();
      },
    };
  }

  it('claims checks again once runs is back on the same address', { timeout: 90_000 }, async () => {
    const before = await queuedCheck();
    expect(
      await waitFor(
        async () => (await before.status()) !== 'POLICY_CHECK_STATUS_QUEUED' && before.status(),
        20_000,
        50,
      ),
    ).toBe('POLICY_CHECK_STATUS_ERRORED');
    before.close();

    await runs!.close();
    runs = undefined;
    // The worker notices: its claims fail while nothing listens on the address.
    await waitFor(() => failures.length >= 3, 30_000, 50);

    runs = await startRunsServer();
    // Fresh clients share grpc-js's connection to the address, which may still be in its
    // reconnect backoff for a moment: retry until the check is created.
    const after = await waitFor(() => queuedCheck().catch(() => undefined), 20_000, 100);
    expect(
      await waitFor(
        async () => (await after.status()) !== 'POLICY_CHECK_STATUS_QUEUED' && after.status(),
        45_000,
        50,
      ),
    ).toBe('POLICY_CHECK_STATUS_ERRORED');
    after.close();
  });
});
