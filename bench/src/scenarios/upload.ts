import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { rssOf } from '../child.js';
import { round } from '../measure.js';
import type { BenchSystem } from '../system.js';

/** Writes a tar.gz of incompressible files totalling `bytes` to disk (never held in memory). */
async function writeArchive(path: string, bytes: number): Promise<void> {
  const pack = tar.pack();
  const out = pipeline(pack, createGzip({ level: 1 }), createWriteStream(path));
  const chunk = 1024 * 1024;
  pack.entry(
    { name: 'sentinel.hcl' },
    'policy "forbid" {\n  source = "./forbid.sentinel"\n  enforcement_level = "advisory"\n}\n',
  );
  pack.entry({ name: 'forbid.sentinel' }, 'main = rule { false }\n');
  for (let i = 0; i * chunk < bytes; i++) {
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name: `data/blob-${i}.bin`, size: chunk }, randomBytes(chunk), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }
  pack.finalize();
  await out;
}

async function newVersion(b: BenchSystem, setId: string): Promise<{ id: string; upload: string }> {
  const v = await b.api('POST', `/policy-sets/${setId}/versions`);
  return { id: v.data.id, upload: v.data.links.upload };
}

async function put(url: string, file: string): Promise<number> {
  const init: Record<string, unknown> = {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: Readable.toWeb(createReadStream(file)),
    duplex: 'half',
  };
  const res = await fetch(url, init as RequestInit);
  await res.arrayBuffer();
  return res.status;
}

/**
 * A 20 MiB upload through the gateway into storage: peak RSS growth of the process (gateway and
 * storage share it in embedded mode), and time from the PUT's response until the version reads
 * `ready`, over `samples` small uploads.
 */
export async function uploadScenario(b: BenchSystem, samples: number, label: string) {
  const dir = mkdtempSync(join(tmpdir(), 'policyhub-bench-upload-'));
  try {
    const org = `upload-${Date.now()}`;
    await b.api('POST', '/organizations', {
      data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
    });
    const set = await b.api('POST', `/organizations/${org}/policy-sets`, {
      data: { type: 'policy-sets', attributes: { name: 'uploads' } },
    });
    const big = join(dir, 'big.tar.gz');
    await writeArchive(big, 20 * 1024 * 1024);
    const small = join(dir, 'small.tar.gz');
    await writeArchive(small, 4096);

    let rssGrowthMiB: number | undefined;
    if (label === 'embedded') {
      // The `npm start` process holds both the gateway and storage in embedded mode.
      const before = rssOf(b.pid);
      let peak = before;
      const timer = setInterval(() => {
        peak = Math.max(peak, rssOf(b.pid));
      }, 5);
      const v = await newVersion(b, set.data.id);
      const status = await put(v.upload, big);
      clearInterval(timer);
      if (status >= 300) throw new Error(`20 MiB upload answered ${status}`);
      rssGrowthMiB = round((peak - before) / 1024 / 1024);
    }

    const delays: number[] = [];
    let firstGetReady = 0;
    for (let i = 0; i < samples; i++) {
      const v = await newVersion(b, set.data.id);
      const status = await put(v.upload, small);
      if (status >= 300) throw new Error(`upload answered ${status}`);
      const t0 = performance.now();
      for (let attempt = 0; ; attempt++) {
        const got = await b.api('GET', `/policy-set-versions/${v.id}`);
        if (got.data.attributes.status === 'ready') {
          if (attempt === 0) firstGetReady++;
          break;
        }
        if (got.data.attributes.status === 'errored') throw new Error(got.data.attributes['error-message']);
        if (performance.now() - t0 > 30_000) throw new Error('version not ready within 30 s');
        await new Promise((r) => setTimeout(r, 5));
      }
      delays.push(performance.now() - t0);
    }
    delays.sort((a, c) => a - c);
    return {
      archiveBytes: statSync(big).size,
      rssGrowthMiB,
      readyP50Ms: round(delays[Math.floor(delays.length / 2)] ?? 0),
      readyMaxMs: round(delays[delays.length - 1] ?? 0),
      readyOnFirstGet: `${firstGetReady}/${samples}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
