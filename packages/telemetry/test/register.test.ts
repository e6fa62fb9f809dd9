import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const REGISTER = here('../src/register.ts');
const APP = here('./fixtures/traced-app.ts');

/** Runs the fixture app the way `npm start` and the service images do: with the preload. */
function runApp(
  env: Record<string, string>,
): Promise<{ code: number | null; report: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', REGISTER, APP], {
      env: { ...stripOtel(process.env), ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '{}';
      resolve({ code, report: JSON.parse(line) });
    });
  });
}

const stripOtel = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(
    Object.entries(env).filter(([k, v]) => !k.startsWith('OTEL_') && v !== undefined),
  ) as Record<string, string>;

describe('the --import preload', () => {
  let collector: Server;
  let collectorUrl: string;
  const received: Array<{ path: string; body: Buffer }> = [];

  beforeAll(async () => {
    // Stands in for an OpenTelemetry collector's OTLP/HTTP receiver.
    collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const address = collector.address() as { port: number };
    collectorUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

  it('leaves a process untraced, without loading the SDK, when no OTLP endpoint is set', async () => {
    const { code, report } = await runApp({});
    expect(code).toBe(0);
    expect(report).toEqual({ tracing: false, sdkLoaded: false });
  });

  it('exports the spans of a traced process to the OTLP endpoint before it exits', async () => {
    const { code, report } = await runApp({
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      OTEL_SERVICE_NAME: 'traced-fixture',
    });
    expect(code).toBe(0);
    expect(report).toEqual({ tracing: true, sdkLoaded: true });
    const traces = received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const payload = Buffer.concat(traces.map((t) => t.body));
    // OTLP protobuf keeps strings as UTF-8: the service name and the server span's route.
    expect(payload.includes('traced-fixture')).toBe(true);
    expect(payload.includes('GET /api/v2/ping')).toBe(true);
    // Metrics and logs go elsewhere (Prometheus, stdout): nothing is pushed for them.
    expect(received.filter((r) => r.path !== '/v1/traces')).toEqual([]);
  });
});
