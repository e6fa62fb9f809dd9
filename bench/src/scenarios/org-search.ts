import pg from 'pg';
import { sample } from '../measure.js';
import type { BenchSystem } from '../system.js';

/** Admin organization search (`q=` substring of name or email) over 20,000 organizations. */
export async function orgSearchScenario(b: BenchSystem, requests: number) {
  const client = new pg.Client({ connectionString: b.databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO admin_orgs.organizations (name, external_id, email)
       SELECT 'tenant-' || md5(g::text), 'org-bench' || lpad(g::text, 9, '0'), 'ops-' || g || '@tenant' || (g % 97) || '.example'
         FROM generate_series(1, 20000) g`,
    );
    await client.query('ANALYZE admin_orgs.organizations');
  } finally {
    await client.end();
  }
  const terms = ['a3f', 'tenant97', 'ops-1999', 'e4d9', 'nothing-matches'];
  const first = await sample(
    `admin q= search, 20k organizations (q=${terms[0]})`,
    `${b.baseUrl}/api/v2/admin/organizations?q=${terms[0]}`,
    b.adminAuth,
    Math.max(1, Math.floor(requests / terms.length)),
  );
  const others = [];
  for (const term of terms.slice(1)) {
    others.push(
      await sample(
        `admin q= search (q=${term})`,
        `${b.baseUrl}/api/v2/admin/organizations?q=${term}`,
        b.adminAuth,
        Math.floor(requests / terms.length),
      ),
    );
  }
  return { rows: [first, ...others] };
}
