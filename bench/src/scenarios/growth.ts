import pg from 'pg';
import type { BenchConfig } from '../config.js';
import { type LoadResult, round, sequential, summarize } from '../measure.js';
import type { Section } from '../report.js';
import { interleave, ratios, showRatio } from '../rounds.js';
import type { BenchSystem } from '../system.js';

const SMALL = 100;
const PAGE_SIZE = 20;

/**
 * One organization's policy sets at two sizes: one set made through the API (one policy, one
 * workspace, one project, one excluded workspace), the rest SEEDED straight into the policy-sets
 * schema with one multi-row INSERT (fast, not through the API: the rows look like the API's,
 * each linked to one policy and one workspace shared by the seeded sets). Returns the requests the scenario times.
 */
export async function growthFixture(b: BenchSystem, sets: number) {
  const org = `growth-${sets}-${Date.now()}`;
  await b.api('POST', '/organizations', {
    data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
  });
  const made = async (path: string, type: string, name: string) =>
    (
      await b.api('POST', `/organizations/${org}/${path}`, {
        data: { type, attributes: { name } },
      })
    ).data.id as string;
  const workspace = await made('workspaces', 'workspaces', 'ws-1');
  const excluded = await made('workspaces', 'workspaces', 'ws-2');
  const project = await made('projects', 'projects', 'project-1');
  const policy = await made('policies', 'policies', 'policy-1');
  // The seeded sets share a policy and a workspace of their own (the shown set's stay in one set).
  const seededPolicy = await made('policies', 'policies', 'policy-seeded');
  const seededWorkspace = await made('workspaces', 'workspaces', 'ws-seeded');
  const rel = (type: string, ids: string[]) => ({ data: ids.map((id) => ({ type, id })) });
  const shown = (
    await b.api('POST', `/organizations/${org}/policy-sets`, {
      data: {
        type: 'policy-sets',
        attributes: { name: 'shown' },
        relationships: {
          policies: rel('policies', [policy]),
          workspaces: rel('workspaces', [workspace]),
          projects: rel('projects', [project]),
          'workspace-exclusions': rel('workspaces', [excluded]),
        },
      },
    })
  ).data.id as string;

  const client = new pg.Client({ connectionString: b.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ organization_id: string }>(
      'SELECT organization_id FROM policy_sets.policy_sets WHERE id = $1',
      [shown],
    );
    const organizationId = rows[0]!.organization_id;
    // Seeding: created one millisecond apart, before the set made through the API.
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO policy_sets.policy_sets (id, organization, organization_id, name, created_at, updated_at)
       SELECT 'polset-' || substr(md5($2 || g), 1, 16), $1, $2, 'seeded-' || lpad(g::text, 6, '0'),
              now() - interval '1 day' + g * interval '1 millisecond', now()
         FROM generate_series(1, $3::int) g`,
      [org, organizationId, sets - 1],
    );
    await client.query(
      `INSERT INTO policy_sets.policy_set_policies (policy_set_id, policy_id)
       SELECT id, $2 FROM policy_sets.policy_sets WHERE organization_id = $1 AND id <> $3`,
      [organizationId, seededPolicy, shown],
    );
    await client.query(
      `INSERT INTO policy_sets.policy_set_workspaces (policy_set_id, workspace_id)
       SELECT id, $2 FROM policy_sets.policy_sets WHERE organization_id = $1 AND id <> $3`,
      [organizationId, seededWorkspace, shown],
    );
    await client.query('COMMIT');
    // As autovacuum leaves a table at rest: statistics and the visibility map (index-only scans).
    await client.query(
      'VACUUM ANALYZE policy_sets.policy_sets, policy_sets.policy_set_policies, policy_sets.policy_set_workspaces',
    );
  } finally {
    await client.end();
  }
  const base = `${b.baseUrl}/api/v2`;
  const list = (page: number) =>
    `${base}/organizations/${org}/policy-sets?page%5Bnumber%5D=${page}&page%5Bsize%5D=${PAGE_SIZE}`;
  const lastPage = Math.ceil(sets / PAGE_SIZE);
  return {
    sets,
    org,
    shown,
    requests: [
      { name: 'list, page 1 of 20', url: list(1), expect: PAGE_SIZE },
      {
        name: `list, page ${Math.min(500, lastPage)} of 20 (page 500, or the last)`,
        url: list(Math.min(500, lastPage)),
        expect: PAGE_SIZE,
      },
      {
        name: 'search[name] matching nothing',
        url: `${base}/organizations/${org}/policy-sets?search%5Bname%5D=nothing-matches&page%5Bsize%5D=${PAGE_SIZE}`,
        expect: 0,
      },
      {
        name: 'show with every include',
        url: `${base}/policy-sets/${shown}?include=policies,workspaces,projects,workspace_exclusions,project_exclusions,newest_version,current_version`,
        expect: 1,
      },
    ],
  };
}

/**
 * Growth: the same four requests on an organization of 100 policy sets and one of
 * `growthSets` (10,000), one connection, sequential requests, the two organizations' requests
 * interleaved in rounds. Goals: every p95 ≤ 25 ms, and the large organization's p95 ≤ 1.5× the
 * small one's.
 */
export async function growthScenario(b: BenchSystem, cfg: BenchConfig) {
  const small = await growthFixture(b, SMALL);
  const large = await growthFixture(b, cfg.growthSets);
  // Each request answers as expected (a page of 20, nothing, the set) before it is timed.
  for (const f of [small, large]) {
    for (const r of f.requests) {
      const res = await fetch(r.url, { headers: b.auth });
      const body = (await res.json()) as { data?: unknown };
      if (res.status !== 200) throw new Error(`${r.url} → ${res.status} ${JSON.stringify(body)}`);
      const n = Array.isArray(body.data) ? body.data.length : body.data ? 1 : 0;
      if (n !== r.expect) throw new Error(`${r.url}: ${n} resources, expected ${r.expect}`);
    }
  }
  // Warm-up (unrecorded).
  for (const f of [small, large]) {
    for (const r of f.requests) await sequential(r.name, r.url, b.auth, 5);
  }
  const steps = [small, large].flatMap((f) =>
    f.requests.map((r) => () => sequential(r.name, r.url, b.auth, cfg.growthRequests)),
  );
  const started = performance.now();
  const rounds = await interleave(cfg.rounds, steps);
  const seconds = (performance.now() - started) / 1000 / steps.length;
  const n = small.requests.length;
  const rows: LoadResult[] = [];
  const comparisons: Array<{ name: string; small: number; large: number; ratio: ReturnType<typeof ratios> }> =
    [];
  for (let i = 0; i < n; i++) {
    const smallRow = summarize(
      `${SMALL} sets: ${small.requests[i]!.name}`,
      rounds.flatMap((r) => r[i]!.latencies),
      seconds,
      rounds.reduce((k, r) => k + r[i]!.non2xx, 0),
    );
    const largeRow = summarize(
      `${large.sets} sets: ${large.requests[i]!.name}`,
      rounds.flatMap((r) => r[n + i]!.latencies),
      seconds,
      rounds.reduce((k, r) => k + r[n + i]!.non2xx, 0),
    );
    rows.push(smallRow, largeRow);
    comparisons.push({
      name: large.requests[i]!.name,
      small: smallRow.p95,
      large: largeRow.p95,
      ratio: ratios(rounds.map((r) => r[n + i]!.p95 / r[i]!.p95)),
    });
  }
  const worstLarge = Math.max(...comparisons.map((c) => c.large));
  const worstRatio = Math.max(...comparisons.map((c) => round(c.large / c.small, 3)));
  const metrics: Section['metrics'] = {
    'requests per shape (rounds × per round)': `${cfg.rounds} × ${cfg.growthRequests}`,
    seeding: `${SMALL - 1} and ${large.sets - 1} sets by one INSERT … SELECT generate_series each (plus one set through the API)`,
  };
  for (const c of comparisons) {
    metrics[`${c.name}: p95 ${large.sets} ÷ p95 ${SMALL} (all samples; per round)`] =
      `${round(c.large / c.small, 3)} (${showRatio(c.ratio)})`;
  }
  const section: Section = {
    title: `Growth: policy sets of one organization, ${SMALL} vs ${large.sets} (${b.mode}, 1 connection)`,
    rows,
    metrics,
  };
  return { section, comparisons, worstLarge, worstRatio, largeSets: large.sets };
}
