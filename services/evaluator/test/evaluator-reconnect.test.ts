import { Writable } from 'node:stream';
import { createLogger } from '@policyhub/telemetry';
import { freePort, testWorkerTokens, waitFor } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandEngine } from '../src/engines/command/command-engine.js';
import { EngineRegistry } from '../src/engines/registry.js';
import { EvaluatorWorker } from '../src/worker.js';
import { FakeRuns } from './support/fake-runs.js';

/**
 * The evaluator against a runs server that is stopped and started again on the same address (a
 * restart of `npm start` or of the runs pod): the worker keeps its channel and claims checks
 * from the new server by itself.
 */
describe('evaluator worker across a runs restart', () => {
  let address: string;
  let runs = new FakeRuns();
  let worker: EvaluatorWorker;
  const failures: string[] = [];

  beforeAll(async () => {
    address = await runs.start(`127.0.0.1:${await freePort()}`);
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
      // An engine that always fails: the worker reports the check failed, which is enough to see
      // that it claimed it.
      engines: EngineRegistry.everyKind(new CommandEngine([process.execPath, '-e', 'process.exit(3)'])),
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
    await runs.stop();
  });

  const check = (id: string) => ({
    id,
    plan: Buffer.from('{"resource_changes":[]}'),
    sets: [
      {
        id: `polset-${id}`,
        name: 'guardrails',
        policies: [
          {
            id: `pol-${id}`,
            name: 'rule',
            enforcementLevel: 'EVALUATION_ENFORCEMENT_LEVEL_HARD_MANDATORY' as const,
            code: 'x',
          },
        ],
      },
    ],
  });

  it('claims checks again once runs is back on the same address', { timeout: 90_000 }, async () => {
    runs.queue(check('before'));
    const before = await runs.decided('before');
    expect(before.kind).toBe('failed');
    expect(before.kind === 'failed' && before.request.errorMessage).toBe('the engine exited with status 3');

    await runs.stop();
    // The worker notices: its claims fail while nothing listens on the address.
    await waitFor(() => failures.length >= 3, 30_000, 50);

    runs = new FakeRuns();
    await runs.start(address);
    runs.queue(check('after'));
    expect((await runs.decided('after', 45_000)).kind).toBe('failed');
  });
});
