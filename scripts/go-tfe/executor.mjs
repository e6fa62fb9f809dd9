#!/usr/bin/env node
/**
 * The executor of the go-tfe suite (plain Node, no dependencies). PolicyHub does not run
 * Terraform: a run waits for its plan JSON, which an executor (or a CI job) brings. go-tfe's
 * run and policy-check tests create runs and wait for them to be planned, so this loop stands in
 * for the executor: it looks for pending runs in every organization (as a site admin) and
 * uploads a plan JSON for each run that upstream's executor would plan now (one run at a time
 * per workspace, see nextInQueue) (`PUT /plans/:id/json-output`): test-fixtures/plan.json, the plan
 * of the configuration go-tfe uploads (one resource to create), unless PLAN_FILE names another.
 * Exits on SIGTERM/SIGINT.
 *
 * The tests create a fresh organization for nearly every run, and failed tests leave theirs
 * behind, so each round visits organizations newest first (by when this loop first saw them)
 * and paces its requests below the token's rate limit, waiting out a 429 instead of dropping the
 * rest of the round: a new run is found within a second or two however many old ones exist.
 *
 * Environment: POLICYHUB_ADDRESS (e.g. http://127.0.0.1:8080), POLICYHUB_TOKEN (site admin).
 */
import { readFileSync } from 'node:fs';

// Not turbo tasks' inputs: this script runs only under scripts/go-tfe-suite.sh.
const { POLICYHUB_ADDRESS, POLICYHUB_TOKEN, PLAN_FILE } = process.env;
const base = `${POLICYHUB_ADDRESS}/api/v2`;
const plan = readFileSync(PLAN_FILE || new URL('./test-fixtures/plan.json', import.meta.url));
const headers = { authorization: `Bearer ${POLICYHUB_TOKEN}`, accept: 'application/vnd.api+json' };
/** Requests per second, below the default budget of 30 per token. */
const PACE = 20;

let stopping = false;
process.on('SIGTERM', () => (stopping = true));
process.on('SIGINT', () => (stopping = true));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let nextSlot = 0;
/** fetch, paced, retrying a 429 after the reset the server names. */
async function call(url, init = {}) {
  for (;;) {
    const now = Date.now();
    nextSlot = Math.max(nextSlot, now) + 1000 / PACE;
    await sleep(nextSlot - 1000 / PACE - now);
    const res = await fetch(url, { ...init, headers: { ...headers, ...init.headers } });
    if (res.status !== 429 || stopping) return res;
    await res.arrayBuffer();
    await sleep(1000 * Number(res.headers.get('x-ratelimit-reset') ?? 1));
  }
}

/** Every item of a paginated list; [] when the list is gone (a deleted organization or workspace). */
async function all(path) {
  const items = [];
  for (let page = 1; ; page++) {
    const res = await call(`${base}${path}?page%5Bsize%5D=100&page%5Bnumber%5D=${page}`);
    if (!res.ok) {
      await res.arrayBuffer();
      return items;
    }
    const body = await res.json();
    items.push(...body.data);
    if (!body.meta?.pagination?.['next-page']) return items;
  }
}

/** Statuses after which a run no longer holds its workspace (no apply phase exists here). */
const RELEASED = new Set(['errored', 'canceled', 'discarded', 'policy_soft_failed', 'force_canceled']);

/**
 * The pending runs of one workspace that upstream's executor would plan now. A workspace
 * runs one run at a time: a run that may apply holds the workspace from its plan until it is
 * applied, discarded or canceled, and the runs created after it wait as `pending` (go-tfe's
 * TestRunsCancel relies on this: it cancels the second of two runs while the first holds the
 * workspace). Plan-only runs never hold it and never wait.
 */
function nextInQueue(runs) {
  const oldestFirst = [...runs].sort((a, b) =>
    a.attributes['created-at'].localeCompare(b.attributes['created-at']),
  );
  const ready = [];
  let held = false;
  for (const run of oldestFirst) {
    const { status, 'plan-only': planOnly } = run.attributes;
    if (status === 'pending' && (planOnly || !held)) ready.push(run);
    if (!planOnly && !RELEASED.has(status)) held = true;
  }
  return ready;
}

const firstSeen = new Map();
const planned = new Set();
let round = 0;
while (!stopping) {
  round++;
  try {
    const orgs = await all('/admin/organizations');
    for (const org of orgs) if (!firstSeen.has(org.id)) firstSeen.set(org.id, round);
    orgs.sort((a, b) => firstSeen.get(b.id) - firstSeen.get(a.id));
    for (const org of orgs) {
      if (stopping) break;
      for (const ws of await all(`/organizations/${encodeURIComponent(org.id)}/workspaces`)) {
        for (const run of nextInQueue(await all(`/workspaces/${ws.id}/runs`))) {
          const planId = run.relationships?.plan?.data?.id;
          if (!planId || planned.has(planId)) continue;
          const res = await call(`${base}/plans/${planId}/json-output`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: plan,
          });
          await res.arrayBuffer();
          if (res.ok || res.status === 409) planned.add(planId);
          console.log(`executor: plan ${planId} of ${run.id}: ${res.status}`);
        }
      }
    }
  } catch (err) {
    console.log(`executor: ${err.message}`);
  }
  await sleep(500);
}
