import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { startBaseline } from '../baseline.js';
import { rssOf } from '../child.js';
import type { BenchConfig } from '../config.js';
import { median, percentile, round, summarize } from '../measure.js';
import type { Section } from '../report.js';
import { interleave, ratios, showRatio } from '../rounds.js';
import type { BenchSystem } from '../system.js';

/** Writes a tar.gz of a policy set plus incompressible files totalling `bytes` (streamed to disk). */
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
 * Uploads through the gateway into storage: time from the start of the PUT until the version
 * reads `ready` (polled every 2 ms), against the baseline of writing the same bytes to a fsynced
 * file and committing one row; and the peak RSS growth of the gateway and storage processes
 * during a large upload and one of a quarter of its size (flat: the growth must not follow the size).
 */
export async function uploadScenario(b: BenchSystem, cfg: BenchConfig) {
  const dir = mkdtempSync(join(tmpdir(), 'policyhub-bench-upload-'));
  const baseline = await startBaseline(b.databaseUrl, 'SELECT 1', join(b.dataDir, 'baseline-objects'));
  try {
    const org = `upload-${Date.now()}`;
    await b.api('POST', '/organizations', {
      data: { type: 'organizations', attributes: { name: org, email: 'b@example.com' } },
    });
    const set = await b.api('POST', `/organizations/${org}/policy-sets`, {
      data: { type: 'policy-sets', attributes: { name: 'uploads' } },
    });
    const newVersion = async () => {
      const v = await b.api('POST', `/policy-sets/${set.data.id}/versions`);
      return { id: v.data.id as string, upload: v.data.links.upload as string };
    };
    const bigBytes = cfg.quick ? 1024 * 1024 : 20 * 1024 * 1024;
    const big = join(dir, 'big.tar.gz');
    await writeArchive(big, bigBytes);
    // A quarter of the size: whether the growth follows the size (it must not).
    const quarter = join(dir, 'quarter.tar.gz');
    await writeArchive(quarter, bigBytes / 4);
    const small = join(dir, 'small.tar.gz');
    await writeArchive(small, 0);

    // Peak RSS growth during one large upload, after one small upload: the first upload of a
    // process loads the HCL parser (a WebAssembly runtime, ADR 0012) once, whatever its size, and
    // that one-time cost is not the upload's memory.
    const warmUp = await newVersion();
    if ((await put(warmUp.upload, small)) >= 300) throw new Error('warm-up upload failed');
    const rss = () => b.uploadPids().reduce((sum, pid) => sum + rssOf(pid), 0);
    const peakGrowthMiB = async (file: string) => {
      const before = rss();
      let peak = before;
      const timer = setInterval(() => {
        peak = Math.max(peak, rss());
      }, 5);
      const version = await newVersion();
      const status = await put(version.upload, file).finally(() => clearInterval(timer));
      if (status >= 300) throw new Error(`large upload answered ${status}`);
      return round((peak - before) / 1024 / 1024);
    };
    const quarterGrowthMiB = await peakGrowthMiB(quarter);
    const rssGrowthMiB = await peakGrowthMiB(big);

    let seq = 0;
    const systemSamples = async () => {
      const putMs: number[] = [];
      const readyMs: number[] = [];
      for (let i = 0; i < cfg.uploadSamples; i++) {
        const v = await newVersion();
        const t0 = performance.now();
        const status = await put(v.upload, small);
        if (status >= 300) throw new Error(`upload answered ${status}`);
        putMs.push(performance.now() - t0);
        for (;;) {
          const got = await b.api('GET', `/policy-set-versions/${v.id}`);
          const state = got.data.attributes.status;
          if (state === 'ready') break;
          if (state === 'errored') throw new Error(got.data.attributes['error-message']);
          if (performance.now() - t0 > 30_000) throw new Error('version not ready within 30 s');
          await new Promise((r) => setTimeout(r, 2));
        }
        readyMs.push(performance.now() - t0);
      }
      return { putMs, readyMs };
    };
    const baselineSamples = async () => {
      const ms: number[] = [];
      for (let i = 0; i < cfg.uploadSamples; i++) {
        const t0 = performance.now();
        const status = await put(baseline.uploadUrl(`object-${++seq}`), small);
        if (status >= 300) throw new Error(`baseline upload answered ${status}`);
        ms.push(performance.now() - t0);
      }
      return { putMs: ms, readyMs: ms };
    };
    // Warm both sides for the same time as the load scenarios (BENCH_WARMUP_SECONDS): an upload runs
    // code no request touches, which V8 optimizes only after some hundred uploads (the first
    // thirty took 1.8x as long as the later ones here); that start-up cost is not the steady state.
    for (const samples of [systemSamples, baselineSamples]) {
      const until = performance.now() + cfg.warmupSeconds * 1000;
      do await samples();
      while (performance.now() < until);
    }
    const started = performance.now();
    const rounds = await interleave(cfg.rounds, [baselineSamples, systemSamples]);
    const seconds = (performance.now() - started) / 1000;
    const ratio = ratios(rounds.map(([bl, s]) => median(s!.readyMs) / median(bl!.readyMs)));
    const ready = rounds.flatMap(([, s]) => s!.readyMs).sort((x, y) => x - y);
    const puts = rounds.flatMap(([, s]) => s!.putMs);
    const base = rounds.flatMap(([bl]) => bl!.readyMs);
    const section: Section = {
      title: `Upload of a ${statSync(small).size}-byte archive: PUT start → \`ready\` (${b.mode}${b.mode === 'distributed' ? ', events over Kafka' : ''})`,
      rows: [
        summarize(`${b.mode}: PUT start → ready`, ready, seconds),
        summarize(`${b.mode}: PUT alone`, puts, seconds),
        summarize('baseline: same bytes to a fsynced file + one committed row', base, seconds),
      ],
      metrics: {
        'PUT start → ready p50 ÷ baseline p50 (median of rounds)': showRatio(ratio),
        [`peak RSS growth of gateway + storage during a ${bigBytes / 4 / 1024 / 1024} MiB upload (MiB, after a warm-up upload)`]:
          quarterGrowthMiB,
        [`peak RSS growth of gateway + storage during a ${bigBytes / 1024 / 1024} MiB upload (MiB, after a warm-up upload)`]:
          rssGrowthMiB,
      },
    };
    return {
      section,
      ratio,
      readyP50: round(percentile(ready, 50)),
      readyP99: round(percentile(ready, 99)),
      rssGrowthMiB,
      quarterGrowthMiB,
      bigBytes,
    };
  } finally {
    await baseline.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
