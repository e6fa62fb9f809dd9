import Fastify from 'fastify';
import pg from 'pg';

/**
 * The baseline, run as its own process: a bare fastify route doing one single-row primary-key read
 * (BASELINE_SQL with the id from the path) on the same Postgres; no gRPC, no auth, no JSON:API.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const sql = process.env.BASELINE_SQL ?? 'SELECT 1';
const app = Fastify();
app.get('/row/:id', async (request, reply) => {
  const { rows } = await pool.query(sql, [(request.params as { id: string }).id]);
  if (rows.length === 0) return reply.status(404).send({ errors: [{ status: '404' }] });
  return { data: rows[0] };
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
