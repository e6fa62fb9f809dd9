import pg from 'pg';
import type { BenchConfig } from '../config.js';
import { round, sequential, summarize } from '../measure.js';
import type { Section } from '../report.js';
import { interleave } from '../rounds.js';
import type { BenchSystem } from '../system.js';

/** Terms of the admin search, with whether they match (checked against the answer). */
const TERMS: Array<{ q: string; matches: boolean }> = [
  { q: 'a3f', matches: true }, // a substring of many name hashes
  { q: 'tenant42.', matches: true }, // one email domain in 97
  { q: 'ops-199@', matches: true }, // one email
  { q: 'tenant97', matches: false }, // every trigram but one occurs
  { q: 'nothing-matches', matches: false },
];

/**
 * Admin organization search (`q=` substring of name or email) over `searchOrganizations`
 * organizations (seeded with SQL), one connection, sequential requests, terms interleaved.
 */
export async function orgSearchScenario(b: BenchSystem, cfg: BenchConfig) {
  const client = new pg.Client({ connectionString: b.databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO admin_orgs.organizations (name, external_id, email)
       SELECT 'tenant-' || md5(g::text), 'org-bench' || lpad(g::text, 9, '0'), 'ops-' || g || '@tenant' || (g % 97) || '.example'
         FROM generate_series(1, $1::int) g`,
      [cfg.searchOrganizations],
    );
    await client.query('ANALYZE admin_orgs.organizations');
  } finally {
    await client.end();
  }
  const url = (q: string) => `${b.baseUrl}/api/v2/admin/organizations?q=${encodeURIComponent(q)}`;
  for (const term of TERMS) {
    const res = await fetch(url(term.q), { headers: b.adminAuth });
    const body = (await res.json()) as { data?: unknown[] };
    if (res.status !== 200) throw new Error(`admin search q=${term.q} answered ${res.status}`);
    const found = (body.data?.length ?? 0) > 0;
    if (found !== term.matches) throw new Error(`q=${term.q} ${found ? 'matches' : 'matches nothing'}`);
  }
  const started = performance.now();
  const rounds = await interleave(
    cfg.rounds,
    TERMS.map((t) => () => sequential(t.q, url(t.q), b.adminAuth, cfg.searchRequests, b.pids())),
  );
  const seconds = (performance.now() - started) / 1000;
  const rows = TERMS.map((t, i) =>
    summarize(
      `q=${t.q} (${t.matches ? 'matches' : 'zero-match'})`,
      rounds.flatMap((r) => r[i]!.latencies),
      seconds / TERMS.length,
      rounds.reduce((n, r) => n + r[i]!.non2xx, 0),
    ),
  );
  const worst = (matches: boolean) =>
    Math.max(...rows.filter((_, i) => TERMS[i]!.matches === matches).map((r) => r.p95));
  const section: Section = {
    title: `Admin organization search over ${cfg.searchOrganizations} organizations (${b.mode}, 1 connection)`,
    rows,
    metrics: {
      'worst p95, matching terms (ms)': worst(true),
      'worst p95, zero-match terms (ms)': worst(false),
      'zero-match worst p95 ÷ matching worst p95': round(worst(false) / worst(true), 3),
    },
  };
  return { section, worstMatching: worst(true), worstZero: worst(false), rows };
}
