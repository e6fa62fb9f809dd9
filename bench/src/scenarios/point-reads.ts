import { startBaseline } from '../baseline.js';
import { type LoadResult, measure } from '../measure.js';
import type { BenchSystem } from '../system.js';

/**
 * GET /policy-sets/:id and GET /runs/:id/comments through the gateway vs a bare fastify route
 * doing a single-row primary-key read on the same Postgres, at 32 connections.
 */
export async function pointReadsScenario(b: BenchSystem, seconds: number) {
  const org = `bench-${Date.now()}`;
  await b.api('POST', '/organizations', {
    data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
  });
  const set = await b.api('POST', `/organizations/${org}/policy-sets`, {
    data: { type: 'policy-sets', attributes: { name: 'guardrails' } },
  });
  const ws = await b.api('POST', `/organizations/${org}/workspaces`, {
    data: { type: 'workspaces', attributes: { name: 'prod' } },
  });
  const run = await b.api('POST', '/runs', {
    data: {
      type: 'runs',
      attributes: { message: 'bench' },
      relationships: { workspace: { data: { type: 'workspaces', id: ws.data.id } } },
    },
  });
  const comment = await b.api('POST', `/runs/${run.data.id}/comments`, {
    data: { type: 'comments', attributes: { body: 'looks good' } },
  });

  const rows: LoadResult[] = [];
  const setBaseline = await startBaseline(
    b.databaseUrl,
    'SELECT * FROM policy_sets.policy_sets WHERE id = $1',
  );
  const commentBaseline = await startBaseline(b.databaseUrl, 'SELECT * FROM runs.comments WHERE id = $1');
  try {
    rows.push(
      await measure('baseline: fastify + pg, policy set row', {
        url: setBaseline.url(set.data.id),
        duration: seconds,
      }),
    );
    rows.push(
      await measure('gateway: GET /policy-sets/:id', {
        url: `${b.baseUrl}/api/v2/policy-sets/${set.data.id}`,
        headers: b.auth,
        duration: seconds,
      }),
    );
    rows.push(
      await measure('baseline: fastify + pg, comment row', {
        url: commentBaseline.url(comment.data.id),
        duration: seconds,
      }),
    );
    rows.push(
      await measure('gateway: GET /runs/:id/comments', {
        url: `${b.baseUrl}/api/v2/runs/${run.data.id}/comments`,
        headers: b.auth,
        duration: seconds,
      }),
    );
  } finally {
    await setBaseline.close();
    await commentBaseline.close();
  }
  const ratio = (i: number, j: number) => Math.round((rows[i]!.rps / rows[j]!.rps) * 1000) / 10;
  return {
    rows,
    ratios: {
      'GET /policy-sets/:id vs baseline (% of req/s)': ratio(1, 0),
      'GET /runs/:id/comments vs baseline (% of req/s)': ratio(3, 2),
    },
  };
}
