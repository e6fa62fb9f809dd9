import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';
import pg from 'pg';

/**
 * The baselines, run as their own process on the same Postgres:
 * - GET /row/:id: a bare fastify route doing one single-row primary-key read (BASELINE_SQL with
 *   the id from the path); no gRPC, no auth, no JSON:API;
 * - PUT /upload/:id: the least an upload must do to be durable: stream the body to a file under
 *   BASELINE_DIR, fsync it, rename it into place (what the filesystem object store does), and
 *   commit one row.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const sql = process.env.BASELINE_SQL ?? 'SELECT 1';
const dir = process.env.BASELINE_DIR ?? '';
await pool.query(
  `CREATE SCHEMA IF NOT EXISTS bench_baseline;
   CREATE TABLE IF NOT EXISTS bench_baseline.uploads (id text PRIMARY KEY, size bigint NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now())`,
);
const app = Fastify();
app.addContentTypeParser('application/octet-stream', (_request, _payload, done) => done(null));
app.get('/row/:id', async (request, reply) => {
  const { rows } = await pool.query(sql, [(request.params as { id: string }).id]);
  if (rows.length === 0) return reply.status(404).send({ errors: [{ status: '404' }] });
  return { data: rows[0] };
});
app.put('/upload/:id', async (request, reply) => {
  if (!dir) return reply.status(500).send({ errors: [{ detail: 'BASELINE_DIR is not set' }] });
  const id = (request.params as { id: string }).id;
  await mkdir(join(dir, '.tmp'), { recursive: true });
  const tmp = join(dir, '.tmp', `${randomBytes(12).toString('hex')}.part`);
  const out = createWriteStream(tmp, { flags: 'wx', mode: 0o600 });
  await pipeline(request.raw, out);
  const handle = await open(tmp, 'r');
  await handle.sync().finally(() => handle.close());
  await rename(tmp, join(dir, id));
  await pool.query('INSERT INTO bench_baseline.uploads (id, size) VALUES ($1, $2)', [id, out.bytesWritten]);
  return reply.status(200).send();
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`baseline listening on ${typeof address === 'object' && address ? address.port : 0}\n`);
process.once(
  'SIGINT',
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
);
