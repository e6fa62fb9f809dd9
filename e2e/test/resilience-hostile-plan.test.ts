import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createWorkspace } from './support/fixtures.js';
import { createRun, planJson } from './support/runs.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * A hostile plan costs its sender, never the server: 80 MiB of `[` (once enough to drive the
 * whole process to a heap out-of-memory crash) is refused at the nesting limit, the server's
 * memory stays where it was, the API keeps answering, and the plan stays as it was. The whole
 * system runs in this process, so this process's memory is the server's.
 */
const MiB = 1024 * 1024;
const HOSTILE_BYTES = 80 * MiB;

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'hostile');
});
afterAll(() => t?.stop());

interface Sent {
  status: number;
  body: { errors?: Array<{ detail?: string; source?: { pointer?: string } }> };
  bytesSent: number;
  peakRssGrowth: number;
}

/**
 * PUTs `opening` followed by `[` up to `total` bytes, 1 MiB at a time with backpressure, stopping
 * as soon as the server answers; samples this process's resident memory meanwhile.
 */
function sendNesting(planId: string, opening: string, total: number): Promise<Sent> {
  const url = new URL(`${t.system.baseUrl}/api/v2/plans/${planId}/json-output`);
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return new Promise<Sent>((resolve, reject) => {
    let answered = false;
    let bytesSent = 0;
    const req = request(url, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${org.owner.api.token}`,
        'content-type': 'application/json',
        'content-length': String(total),
      },
    });
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearInterval(sampler);
        req.destroy();
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          bytesSent,
          peakRssGrowth: peak - baseline,
        });
      });
    });
    // Writes after the server closed the connection fail; the answer already counts.
    req.on('error', (err) => {
      if (!answered) {
        clearInterval(sampler);
        reject(err);
      }
    });
    const chunk = Buffer.alloc(MiB, '[');
    const pump = () => {
      if (bytesSent === 0) {
        req.write(opening);
        bytesSent += Buffer.byteLength(opening);
      }
      while (!answered && bytesSent < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - bytesSent));
        bytesSent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('a plan nested 80 MiB deep', () => {
  it('is refused at the nesting limit, and the server neither grows nor stops answering', async () => {
    const ws = await createWorkspace(org.owner.api, org.name);
    const run = await createRun(org.owner.api, ws.id);
    const planId = (await org.owner.api.get(`/runs/${run.id}`)).body.data.relationships.plan.data
      .id as string;

    const sent = await sendNesting(planId, '{"format_version":"1.2","prior_state":', HOSTILE_BYTES);
    expect(sent.status).toBe(422);
    expect(sent.body.errors?.[0]?.detail).toContain('more than 64 levels deep');
    expect(sent.body.errors?.[0]?.source?.pointer).toMatch(/^\/prior_state(\/0)+$/);
    // Refused long before the end: the rest of the body was never read.
    expect(sent.bytesSent).toBeLessThan(HOSTILE_BYTES);
    // Before the limit, 4 MiB of nesting alone added about 400 MiB; now the refusal costs
    // nothing measurable. The bound leaves room for the collector's own swings.
    expect(sent.peakRssGrowth).toBeLessThan(128 * MiB);

    expect((await t.anonymous.get('/ping')).status).toBe(204);
    const plan = await org.owner.api.get(`/plans/${planId}`);
    expect(plan.body.data.attributes.status).toBe('pending');
    // Nothing was kept: the same plan still takes its real document.
    const good = await org.owner.api.put(`/plans/${planId}/json-output`, planJson(['null_resource']), {
      'content-type': 'application/json',
    });
    expect(good.status, good.text).toBe(200);
    expect(good.body.data.attributes.status).toBe('finished');
  });
});
