import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { ApiError, sleep } from './api.mjs';
import {
  AWAITING_OVERRIDE_STATUSES,
  exitCodeOf,
  policyOutcomes,
  SETTLED_RUN_STATUSES,
  verdictOf,
} from './outcomes.mjs';

/**
 * @typedef {import('./api.mjs').Api} Api
 * @typedef {{
 *   workspace: string, plan: string, message: string, planOnly: boolean, waitOverride: boolean,
 *   timeoutSeconds: number, json: boolean, keepRun: boolean,
 * }} CheckOptions
 * @typedef {{
 *   progress(line: string): void, stdout(text: string): void, stdin: NodeJS.ReadableStream,
 *   signal?: AbortSignal,
 * }} Io
 */

/** Poll with backoff: 0.5 s growing to 5 s. */
const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 5_000;

/** The exit status of an interrupted check (128 + SIGINT), as shells report it. */
export const INTERRUPTED = 130;

/**
 * `policyhub check`: resolve the workspace, create a run (plan-only unless told otherwise),
 * upload the plan JSON, wait for the verdict, print it, and return the exit code
 * (0 go on, 2 soft-failed, 1 stop). Interrupted (`io.signal`) or out of time, it discards the run
 * it created unless `keepRun`, so no run waits forever for a gate that left.
 *
 * @param {Api} api
 * @param {CheckOptions} options
 * @param {Io} io
 * @returns {Promise<number>}
 */
export async function check(api, options, io) {
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  const planBody = openPlan(options.plan, io);

  const workspace = await resolveWorkspace(api, options.workspace);
  io.progress(`workspace ${workspace.organization}/${workspace.name} (${workspace.id})`);

  const created = await api.request('POST', '/runs', {
    json: {
      data: {
        type: 'runs',
        attributes: { message: options.message, 'plan-only': options.planOnly },
        relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } } },
      },
    },
  });
  const run = created.body.data;
  const planId = run.relationships?.plan?.data?.id;
  if (!planId)
    throw new ApiError('the server did not return the run\u2019s plan; is it a PolicyHub server?', 0);
  io.progress(`run ${run.id} created${options.planOnly ? ' (plan-only)' : ''}: ${api.base}/runs/${run.id}`);
  try {
    return await planAndWait(api, options, io, deadline, planBody, run, planId);
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err;
    await leave(api, io, options, run.id, 'interrupted');
    io.progress('interrupted; exit 130');
    return INTERRUPTED;
  }
}

/** Thrown by the waits once `io.signal` aborts. */
class Interrupted extends Error {}

/**
 * @param {Api} api
 * @param {CheckOptions} options
 * @param {Io} io
 * @param {number} deadline
 * @param {any} planBody
 * @param {any} run
 * @param {string} planId
 */
async function planAndWait(api, options, io, deadline, planBody, run, planId) {
  if (io.signal?.aborted) throw new Interrupted();
  const uploaded = await api.request('PUT', `/plans/${planId}/json-output`, {
    body: planBody,
    contentType: 'application/json',
  });
  const counts = uploaded.body?.data?.attributes ?? {};
  io.progress(
    `plan uploaded: ${counts['resource-additions'] ?? 0} to add, ${counts['resource-changes'] ?? 0} to change, ${counts['resource-destructions'] ?? 0} to destroy`,
  );

  let settled = await waitForRun(api, run.id, deadline, (s) => SETTLED_RUN_STATUSES.has(s), io);
  if (!settled) {
    await leave(api, io, options, run.id, `no verdict within ${options.timeoutSeconds} s`);
    return finish(api, io, options, { run, plan: uploaded.body?.data, timedOut: true });
  }

  // A check's override may lead to the task stage's decision: wait as long as the run waits.
  while (AWAITING_OVERRIDE_STATUSES.has(settled.attributes.status) && options.waitOverride) {
    io.progress(
      settled.attributes.status === 'policy_override'
        ? 'the policy check soft-failed; waiting for an override (or the run to end)'
        : 'a mandatory policy of the task stage failed; waiting for an override (or the run to end)',
    );
    const waiting = settled.attributes.status;
    const after = await waitForRun(
      api,
      run.id,
      deadline,
      (s) => s !== waiting && SETTLED_RUN_STATUSES.has(s),
      io,
    );
    if (!after) {
      await leave(api, io, options, run.id, `no override within ${options.timeoutSeconds} s`);
      return finish(api, io, options, { run: settled, plan: uploaded.body?.data, timedOut: true });
    }
    settled = after;
  }
  return finish(api, io, options, { run: settled, plan: uploaded.body?.data, timedOut: false });
}

/**
 * The gate stops waiting: discard the run (unless --keep-run) so it does not wait forever. A run
 * that moved on meanwhile (409), or a failure to reach the server, is reported, not fatal.
 * @param {Api} api
 * @param {Io} io
 * @param {CheckOptions} options
 * @param {string} runId
 * @param {string} reason
 */
async function leave(api, io, options, runId, reason) {
  if (options.keepRun) {
    io.progress(`${reason}; run ${runId} is kept (--keep-run)`);
    return;
  }
  try {
    await api.request('POST', `/runs/${runId}/actions/discard`, {
      json: { comment: `policyhub check: ${reason}` },
    });
    io.progress(`${reason}; run ${runId} discarded (--keep-run keeps it)`);
  } catch (err) {
    io.progress(`${reason}; run ${runId} could not be discarded: ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * @param {string} path
 * @param {Io} io
 */
function openPlan(path, io) {
  if (path === '-') return Readable.toWeb(/** @type {any} */ (io.stdin));
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
  } catch {
    throw new UsageError(
      `cannot read the plan file ${path}; produce it with: terraform show -json plan.tfplan > plan.json`,
    );
  }
  return Readable.toWeb(createReadStream(path));
}

export class UsageError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * `ws-…` (an id) or `ORG/NAME`.
 * @param {Api} api
 * @param {string} ref
 * @returns {Promise<{ id: string, name: string, organization: string }>}
 */
async function resolveWorkspace(api, ref) {
  const asWorkspace = (/** @type {any} */ w) => ({
    id: w.id,
    name: w.attributes.name,
    organization: w.relationships?.organization?.data?.id ?? '',
  });
  if (/^ws-[A-Za-z0-9]+$/.test(ref)) {
    try {
      return asWorkspace((await api.get(`/workspaces/${ref}`)).body.data);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        throw new ApiError(`workspace ${ref} not found (or the token cannot see it)`, 404);
      throw err;
    }
  }
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1)
    throw new UsageError(`--workspace must be ORG/NAME or a workspace id (ws-…), not ${JSON.stringify(ref)}`);
  const org = ref.slice(0, slash);
  const name = ref.slice(slash + 1);
  for (let page = 1; ; page++) {
    let res;
    try {
      res = await api.get(
        `/organizations/${encodeURIComponent(org)}/workspaces?search%5Bname%5D=${encodeURIComponent(name)}&page%5Bsize%5D=100&page%5Bnumber%5D=${page}`,
      );
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        throw new ApiError(`organization ${org} not found (or the token cannot see it)`, 404);
      throw err;
    }
    const match = (res.body.data ?? []).find((/** @type {any} */ w) => w.attributes?.name === name);
    if (match) return asWorkspace(match);
    const pagination = res.body.meta?.pagination;
    if (!pagination?.['next-page'])
      throw new ApiError(`workspace ${ref} not found (or the token cannot see it)`, 404);
  }
}

/**
 * Polls the run until `done(status)` or the deadline; undefined when the deadline passed.
 * @param {Api} api
 * @param {string} runId
 * @param {number} deadline
 * @param {(status: string) => boolean} done
 * @param {Io} io
 */
async function waitForRun(api, runId, deadline, done, io) {
  let delay = FIRST_POLL_MS;
  let last = '';
  while (true) {
    if (io.signal?.aborted) throw new Interrupted();
    const run = (await api.get(`/runs/${runId}`)).body.data;
    const status = run.attributes.status;
    if (status !== last) {
      io.progress(`run status: ${status}`);
      last = status;
    }
    if (done(status)) return run;
    if (Date.now() + delay > deadline) return undefined;
    await sleep(delay, io.signal);
    delay = Math.min(Math.round(delay * 1.5), MAX_POLL_MS);
  }
}

/**
 * Prints the verdict (progress and outcomes on stderr, the document on stdout with --json) and
 * returns the exit code.
 * @param {Api} api
 * @param {Io} io
 * @param {CheckOptions} options
 * @param {{ run: any, plan: any, timedOut: boolean }} state
 */
async function finish(api, io, options, state) {
  const { run, plan, timedOut } = state;
  const checkId = run.relationships?.['policy-checks']?.data?.[0]?.id;
  const checkDoc = checkId ? (await api.get(`/policy-checks/${checkId}`)).body.data : undefined;
  let output = '';
  if (checkDoc) {
    const res = await api.get(`/policy-checks/${checkId}/output`);
    output = res.status === 200 ? res.text : '';
  }
  const policies = policyOutcomes(output);
  const stage = await taskStageOf(api, run);
  const settledVerdict = verdictOf(
    run.attributes.status,
    checkDoc?.attributes?.status,
    stage && { status: stage.status, overridden: stage.evaluations.some((e) => e.status === 'overridden') },
  );
  const verdict = timedOut ? 'timeout' : settledVerdict;
  const exitCode = timedOut ? 1 : exitCodeOf(settledVerdict);

  if (checkDoc) io.progress(`policy check ${checkDoc.id}: ${checkDoc.attributes.status}`);
  for (const p of policies) {
    io.progress(`  ${p.passed ? 'passed' : 'FAILED'}  ${p.name} (${p.enforcementLevel})`);
  }
  if (output && !options.json) io.progress(`--- policy check output ---\n${output.trimEnd()}\n---`);
  if (stage) {
    io.progress(`task stage ${stage.id}: ${stage.status}`);
    for (const e of stage.evaluations) {
      io.progress(`  policy evaluation ${e.id} (${e.policyKind}): ${e.status}`);
      for (const set of e.policySets) {
        io.progress(`    policy set ${set.name}${set.error ? `: ${set.error}` : ''}`);
        for (const o of set.outcomes) {
          io.progress(
            `      ${o.status === 'passed' ? 'passed' : o.status.toUpperCase()}  ${o.policy_name} (${o.enforcement_level})`,
          );
          for (const line of o.output ?? []) io.progress(`        ${line.print}`);
        }
      }
    }
  }
  io.progress(explain(verdict, run, options, timedOut));

  if (options.json) {
    io.stdout(
      `${JSON.stringify(
        {
          verdict,
          exitCode,
          run: { id: run.id, status: run.attributes.status, url: `${api.base}/runs/${run.id}` },
          plan: plan
            ? {
                id: plan.id,
                ...pick(plan.attributes, [
                  'status',
                  'has-changes',
                  'resource-additions',
                  'resource-changes',
                  'resource-destructions',
                ]),
              }
            : null,
          policyCheck: checkDoc
            ? {
                id: checkDoc.id,
                status: checkDoc.attributes.status,
                result: checkDoc.attributes.result,
                isOverridable: checkDoc.attributes.actions?.['is-overridable'] ?? false,
              }
            : null,
          policies,
          output,
          taskStage: stage ?? null,
        },
        null,
        2,
      )}\n`,
    );
  }
  return exitCode;
}

/**
 * The run's task stage (kind_b and agent-mode sets) with each evaluation's set outcomes, or
 * undefined when the run has none.
 * @param {Api} api
 * @param {any} run
 */
async function taskStageOf(api, run) {
  const stageId = run.relationships?.['task-stages']?.data?.[0]?.id;
  if (!stageId) return undefined;
  const doc = (await api.get(`/task-stages/${stageId}?include=policy_evaluations`)).body;
  const evaluations = [];
  for (const e of (doc.included ?? []).filter((/** @type {any} */ r) => r.type === 'policy-evaluations')) {
    const outcomes = (await api.get(`/policy-evaluations/${e.id}/policy-set-outcomes?page%5Bsize%5D=100`))
      .body.data;
    evaluations.push({
      id: e.id,
      policyKind: e.attributes['policy-kind'],
      status: e.attributes.status,
      resultCount: e.attributes['result-count'],
      policySets: outcomes.map((/** @type {any} */ o) => ({
        name: o.attributes['policy-set-name'],
        error: o.attributes.error,
        outcomes: o.attributes.outcomes,
      })),
    });
  }
  return {
    id: doc.data.id,
    status: doc.data.attributes.status,
    isOverridable: doc.data.attributes.actions?.['is-overridable'] ?? false,
    evaluations,
  };
}

/** @param {Record<string, unknown>} o @param {string[]} keys */
const pick = (o, keys) => Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));

/**
 * @param {string} verdict
 * @param {any} run
 * @param {CheckOptions} options
 * @param {boolean} timedOut
 */
function explain(verdict, run, options, timedOut) {
  if (timedOut)
    return `no verdict within ${options.timeoutSeconds} s (run status ${run.attributes.status}); exit 1`;
  switch (verdict) {
    case 'passed':
      return 'verdict: passed; exit 0';
    case 'overridden':
      return 'verdict: soft-failed and overridden; exit 0';
    case 'no-policies':
      return 'verdict: no policy set applies to this workspace; exit 0';
    case 'soft-failed':
      if (run.attributes.status === 'post_plan_awaiting_decision')
        return `verdict: a mandatory policy failed in an overridable set; a user allowed to override policies can let run ${run.id} through (rerun with --wait-override to wait for it); exit 2`;
      return run.attributes.status === 'policy_override'
        ? `verdict: soft-failed; a user allowed to override policies can let run ${run.id} through (rerun with --wait-override to wait for it); exit 2`
        : 'verdict: soft-failed (plan-only run: nothing to override; rerun with --no-plan-only for an overridable run); exit 2';
    case 'hard-failed':
      return 'verdict: hard-failed; exit 1';
    case 'canceled':
      return 'verdict: the run was canceled; exit 1';
    case 'discarded':
      return 'verdict: the run was discarded; exit 1';
    default:
      return 'verdict: errored (see the check output or the set outcomes above); exit 1';
  }
}
