import pg from 'pg';
import { sample } from '../measure.js';
import type { BenchSystem } from '../system.js';

/**
 * An organization with 10,000 policy sets and 50,000 workspaces (seeded with SQL for speed; every
 * set has 2 policies, 5 workspaces and a ready current version), listed 20 at a time with
 * include=policies,workspaces,current_version: page 1 vs page 400.
 */
export async function largeListScenario(b: BenchSystem, requests: number) {
  const org = `biglist-${Date.now()}`;
  await b.api('POST', '/organizations', {
    data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
  });
  const client = new pg.Client({ connectionString: b.databaseUrl });
  await client.connect();
  try {
    const project = (await client.query('SELECT id FROM admin_orgs.projects WHERE organization = $1', [org]))
      .rows[0].id;
    await client.query(
      `INSERT INTO admin_orgs.workspaces (id, organization, project_id, name)
       SELECT 'ws-bench' || lpad(g::text, 11, '0'), $1, $2, 'ws-' || g FROM generate_series(1, 50000) g`,
      [org, project],
    );
    await client.query(
      `INSERT INTO policy_sets.policies (id, organization, name, enforcement_level)
       SELECT 'pol-bench' || lpad(g::text, 10, '0'), $1, 'policy-' || g, 'advisory' FROM generate_series(1, 100) g`,
      [org],
    );
    await client.query(
      `INSERT INTO policy_sets.policy_sets (id, organization, name, versioned, current_version_id, newest_version_id, created_at)
       SELECT 'polset-b' || lpad(g::text, 10, '0'), $1, 'set-' || g, true, 'polsetver-b' || lpad(g::text, 10, '0'),
              'polsetver-b' || lpad(g::text, 10, '0'), now() - (10000 - g) * interval '1 second'
         FROM generate_series(1, 10000) g`,
      [org],
    );
    await client.query(
      `INSERT INTO policy_sets.policy_set_versions (id, policy_set_id, organization, status, pending_at, ready_at,
              upload_expires_at, created_at, updated_at)
       SELECT 'polsetver-b' || lpad(g::text, 10, '0'), 'polset-b' || lpad(g::text, 10, '0'), $1, 'ready', now(), now(),
              now(), now(), now() FROM generate_series(1, 10000) g`,
      [org],
    );
    await client.query(
      `INSERT INTO policy_sets.policy_set_policies (policy_set_id, policy_id)
       SELECT 'polset-b' || lpad(g::text, 10, '0'), 'pol-bench' || lpad((1 + (g + k) % 100)::text, 10, '0')
         FROM generate_series(1, 10000) g, generate_series(0, 1) k`,
    );
    await client.query(
      `INSERT INTO policy_sets.policy_set_workspaces (policy_set_id, workspace_id)
       SELECT 'polset-b' || lpad(g::text, 10, '0'), 'ws-bench' || lpad((1 + ((g - 1) * 5 + k) % 50000)::text, 11, '0')
         FROM generate_series(1, 10000) g, generate_series(0, 4) k`,
    );
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
  const url = (page: number) =>
    `${b.baseUrl}/api/v2/organizations/${org}/policy-sets?include=policies,workspaces,current_version&page%5Bsize%5D=20&page%5Bnumber%5D=${page}`;
  // Warm up both paths once.
  await fetch(url(1), { headers: b.auth }).then((r) => r.arrayBuffer());
  await fetch(url(400), { headers: b.auth }).then((r) => r.arrayBuffer());
  const page1 = await sample(
    'list 20 sets + includes, page 1 (10k sets, 50k workspaces)',
    url(1),
    b.auth,
    requests,
  );
  const page400 = await sample('list 20 sets + includes, page 400', url(400), b.auth, requests);
  return {
    rows: [page1, page400],
    ratios: { 'page 400 p50 / page 1 p50': Math.round((page400.p50 / page1.p50) * 100) / 100 },
  };
}
