import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type * as grpc from '@grpc/grpc-js';
import { type commonV1, contracts, type runsV1, toTimestamp } from '@policyhub/contracts';
import { conflict, notFound } from '@policyhub/errors';
import {
  asServiceError,
  bindServer,
  createGrpcServer,
  type Handlers,
  implement,
  shutdownServer,
  streaming,
} from '@policyhub/grpc-runtime';
import { testAuth } from '@policyhub/testing';

/**
 * A stand-in for the runs service's PolicyEvaluator API (proto/policyhub/runs/v1/
 * policy_evaluator.proto), so the evaluator is tested at its boundary without runs' code: it
 * hands out the checks a test queues (one lease each, RUNS_LEASE_LOST for a replaced or settled
 * one), streams their plan and archives, and records what the evaluator reported. It judges
 * nothing: CompletePolicyCheck answers the status the test chose (passed by default).
 */

type Kind = 'EVALUATION_POLICY_KIND_A' | 'EVALUATION_POLICY_KIND_B';
type Level =
  | 'EVALUATION_ENFORCEMENT_LEVEL_ADVISORY'
  | 'EVALUATION_ENFORCEMENT_LEVEL_SOFT_MANDATORY'
  | 'EVALUATION_ENFORCEMENT_LEVEL_HARD_MANDATORY';

export interface QueuedSet {
  id: string;
  name: string;
  kind?: Kind;
  parameters?: Record<string, string>;
  /** Keys of `parameters` whose values are sensitive. */
  sensitiveParameters?: string[];
  policies?: Array<{ id: string; name: string; enforcementLevel: Level; code?: string }>;
  /** A versioned set's tar.gz. */
  archive?: Buffer;
  policiesPath?: string;
  /** What storage recorded of the archive's configuration at upload (unset: a version from before). */
  declaration?: commonV1.ArchiveDeclaration;
}

export interface QueuedCheck {
  id: string;
  plan: Buffer;
  sets: QueuedSet[];
  /** What GetPolicyCheckInput answers instead of the input (RUNS_PLAN_MISSING, …). */
  inputError?: Error;
  /** Announce this SHA-256 for the plan instead of the real one (a corrupted object). */
  planSha256?: string;
  /** CompletePolicyCheck's answer. */
  status?: runsV1.PolicyCheckStatus;
  /** What CompletePolicyCheck throws instead (the check stays leased, as after a failed report). */
  reportError?: Error;
}

export type Decision =
  | { kind: 'completed'; request: runsV1.CompletePolicyCheckRequest__Output }
  | { kind: 'failed'; request: runsV1.FailPolicyCheckRequest__Output };

interface Held {
  check: QueuedCheck;
  token: string | undefined;
  attempts: number;
  decision: Decision | undefined;
  objects: Map<string, Buffer>;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export class FakeRuns {
  private readonly checks = new Map<string, Held>();
  private server: grpc.Server | undefined;
  private readonly waiters = new Set<() => void>();
  /** Every lease token the evaluator claimed with, in order (to lose one on purpose). */
  readonly claims: Array<{ checkId: string; token: string; evaluatorId: string | undefined }> = [];
  address = '';

  async start(address = '127.0.0.1:0'): Promise<string> {
    const server = createGrpcServer();
    server.addService(
      contracts().policyhub.runs.v1.PolicyEvaluator.service,
      implement(this.handlers(), {
        logger: { error: () => {} },
        auth: testAuth('runs'),
        allow: ['evaluator'],
      }),
    );
    this.address = await bindServer(server, address);
    this.server = server;
    return this.address;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await shutdownServer(server, 100);
  }

  queue(check: QueuedCheck): void {
    const objects = new Map<string, Buffer>([[`plan/${check.id}`, check.plan]]);
    for (const set of check.sets) if (set.archive) objects.set(`archive/${check.id}/${set.id}`, set.archive);
    this.checks.set(check.id, { check, token: undefined, attempts: 0, decision: undefined, objects });
  }

  /** Takes the lease away (as a claim after expiry by another worker would). */
  revokeLease(checkId: string): void {
    const held = this.checks.get(checkId);
    if (held) held.token = `revoked-${randomBytes(4).toString('hex')}`;
  }

  decision(checkId: string): Decision | undefined {
    return this.checks.get(checkId)?.decision;
  }

  /** Resolves once the check is completed or failed. */
  async decided(checkId: string, timeoutMs = 20_000): Promise<Decision> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const decision = this.decision(checkId);
      if (decision) return decision;
      if (Date.now() > deadline) throw new Error(`check ${checkId} was not decided within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 50);
        this.waiters.add(done);
        const waiters = this.waiters;
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
      });
    }
  }

  private settle(held: Held, decision: Decision) {
    held.decision = decision;
    held.token = undefined;
    for (const wake of [...this.waiters]) wake();
  }

  private holding(checkId: string, token: string): Held {
    const held = this.checks.get(checkId);
    if (!held) throw notFound('RUNS_POLICY_CHECK_NOT_FOUND');
    if (held.decision || !token || held.token !== token) {
      throw conflict('RUNS_LEASE_LOST', 'the lease on this policy check was lost');
    }
    return held;
  }

  private lease(held: Held, seconds: number | undefined) {
    return {
      policyCheckId: held.check.id,
      leaseToken: held.token!,
      expiresAt: toTimestamp(new Date(Date.now() + (seconds ?? 300) * 1000)),
      attempt: held.attempts,
    };
  }

  private handlers(): Handlers<runsV1.PolicyEvaluatorHandlers> {
    const errorOptions = { logger: { error: () => {} }, auth: testAuth('runs') };
    return {
      ClaimPolicyCheck: async (req) => {
        const held = [...this.checks.values()].find((h) => !h.decision && h.token === undefined);
        if (!held) return { claimed: false, lease: null };
        held.token = randomBytes(12).toString('base64url');
        held.attempts++;
        this.claims.push({ checkId: held.check.id, token: held.token, evaluatorId: req.evaluatorId });
        return { claimed: true, lease: this.lease(held, req.leaseSeconds) };
      },
      ExtendPolicyCheckLease: async (req) => {
        const held = this.holding(req.policyCheckId, req.leaseToken);
        return { lease: this.lease(held, req.leaseSeconds) };
      },
      GetPolicyCheckInput: async (req) => {
        const { check, objects } = this.holding(req.policyCheckId, req.leaseToken);
        if (check.inputError) throw check.inputError;
        const reference = (key: string, announced?: string) => {
          const bytes = objects.get(key)!;
          return { key, sizeBytes: bytes.length, sha256: announced ?? sha256(bytes) };
        };
        return {
          policyCheckId: check.id,
          runId: `run-of-${check.id}`,
          organization: 'acme',
          workspaceId: 'ws-fake',
          plan: reference(`plan/${check.id}`, check.planSha256),
          run: { createdAt: toTimestamp(new Date('2026-01-01T00:00:00Z')), message: 'fake', planOnly: false },
          policySets: check.sets.map((s) => ({
            id: s.id,
            name: s.name,
            kind: s.kind ?? 'EVALUATION_POLICY_KIND_A',
            parameters: s.parameters ?? {},
            sensitiveParameters: s.sensitiveParameters ?? [],
            policies: (s.policies ?? []).map((p) => ({ ...p, code: p.code })),
            archive: s.archive ? reference(`archive/${check.id}/${s.id}`) : null,
            versionId: s.archive ? `polsetver-${s.id}` : undefined,
            policiesPath: s.policiesPath,
            declaration: s.declaration ?? null,
          })),
        };
      },
      ReadPolicyCheckObject: streaming(
        async (
          call: grpc.ServerWritableStream<
            runsV1.ReadPolicyCheckObjectRequest__Output,
            runsV1.ReadPolicyCheckObjectResponse
          >,
        ) => {
          try {
            const { objects } = this.holding(call.request.policyCheckId, call.request.leaseToken);
            const bytes = objects.get(call.request.key);
            if (!bytes) throw notFound('RUNS_OBJECT_NOT_FOUND');
            for (let at = 0; at < bytes.length; at += 64 * 1024) {
              if (!call.write({ data: bytes.subarray(at, at + 64 * 1024) })) await once(call, 'drain');
            }
            call.end();
          } catch (err) {
            call.emit('error', asServiceError(err, 'ReadPolicyCheckObject', errorOptions));
          }
        },
      ),
      CompletePolicyCheck: async (req) => {
        const held = this.holding(req.policyCheckId, req.leaseToken);
        if (held.check.reportError) throw held.check.reportError;
        this.settle(held, { kind: 'completed', request: req });
        return { status: held.check.status ?? 'POLICY_CHECK_STATUS_PASSED' };
      },
      FailPolicyCheck: async (req) => {
        const held = this.holding(req.policyCheckId, req.leaseToken);
        this.settle(held, { kind: 'failed', request: req });
        return {};
      },
    };
  }
}
