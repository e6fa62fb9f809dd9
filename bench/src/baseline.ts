import Fastify from 'fastify';
import pg from 'pg';

/**
 * The baseline every gateway figure is compared with: a bare fastify route doing the same
 * single-row primary-key read on the same Postgres, no gRPC, no auth, no JSON:API.
 */
export async function startBaseline(databaseUrl: string, sql: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const app = Fastify();
  app.get('/row/:id', async (request, reply) => {
    const { rows } = await pool.query(sql, [(request.params as { id: string }).id]);
    if (rows.length === 0) return reply.status(404).send({ errors: [{ status: '404' }] });
    return { data: rows[0] };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: (id: string) => `http://127.0.0.1:${port}/row/${id}`,
    async close() {
      await app.close();
      await pool.end();
    },
  };
}
