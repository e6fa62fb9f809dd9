#!/usr/bin/env node
/**
 * The executor of the go-tfe suite (plain Node, no dependencies). PolicyHub does not run
 * Terraform: a run waits for its plan JSON, which an executor (or a CI job) brings. go-tfe's
 * policy-check tests create runs and wait for them to be planned, so this loop stands in for the
 * executor: every second it looks for pending runs in every organization (as a site admin) and
 * uploads a plan JSON for each (`PUT /plans/:id/json-output`), an empty plan unless PLAN_FILE
 * names one. Exits on SIGTERM/SIGINT.
 *
 * Environment: POLICYHUB_ADDRESS (e.g. http://127.0.0.1:8080), POLICYHUB_TOKEN (site admin).
 */
import { readFileSync } from 'node:fs';

// Not turbo tasks' inputs: this script runs only under scripts/go-tfe-suite.sh.
const { POLICYHUB_ADDRESS, POLICYHUB_TOKEN, PLAN_FILE } = process.env;
const base = `${POLICYHUB_ADDRESS}/api/v2`;
const token = POLICYHUB_TOKEN;
const plan = PLAN_FILE
  ? readFileSync(PLAN_FILE)
  : JSON.stringify({ format_version: '1.2', terraform_version: '1.9.0', resource_changes: [] });
const headers = { authorization: `Bearer ${token}`, accept: 'application/vnd.api+json' };

let stopping = false;
process.on('SIGTERM', () => (stopping = true));
process.on('SIGINT', () => (stopping = true));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Every item of a paginated list (stops on any error: the next round tries again). */
async function all(path) {
  const items = [];
  for (let page = 1; ; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await fetch(`${base}${path}${sep}page%5Bsize%5D=100&page%5Bnumber%5D=${page}`, { headers });
    if (res.status === 429) await sleep(1000);
    if (!res.ok) return items;
    const body = await res.json();
    items.push(...body.data);
    if (!body.meta?.pagination?.['next-page']) return items;
  }
}

const planned = new Set();
while (!stopping) {
  try {
    for (const org of await all('/admin/organizations')) {
      for (const ws of await all(`/organizations/${encodeURIComponent(org.id)}/workspaces`)) {
        for (const run of await all(`/workspaces/${ws.id}/runs`)) {
          const planId = run.relationships?.plan?.data?.id;
          if (run.attributes.status !== 'pending' || !planId || planned.has(planId)) continue;
          const res = await fetch(`${base}/plans/${planId}/json-output`, {
            method: 'PUT',
            headers: { ...headers, 'content-type': 'application/json' },
            body: plan,
          });
          if (res.ok || res.status === 409) planned.add(planId);
          console.log(`executor: plan ${planId} of ${run.id}: ${res.status}`);
        }
      }
    }
  } catch (err) {
    console.log(`executor: ${err.message}`);
  }
  await sleep(1000);
}
