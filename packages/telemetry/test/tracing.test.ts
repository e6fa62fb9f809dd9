import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { activeTracing } from '../src/tracing-state.js';
import { startTracing, type Tracing } from '../src/tracing.js';

/**
 * Instrumentation patches modules as they load, so everything instrumented (pg, http, fastify)
 * is imported dynamically, after startTracing(), exactly as the preload orders it in production.
 */
const exporter = new InMemorySpanExporter();
let tracing: Tracing | undefined;
afterAll(async () => {
  await tracing?.shutdown();
});

const spansOfTrace = (traceId: string): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);

describe('startTracing', () => {
  it('does nothing without an OTLP endpoint or an exporter', async () => {
    const off = await startTracing({ serviceName: 'test', env: {} });
    expect(off.enabled).toBe(false);
    expect(activeTracing()).toBeUndefined();
    await expect(off.shutdown()).resolves.toBeUndefined();
  });

  it('stays off when OTEL_SDK_DISABLED is set even with an endpoint', async () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' };
    expect((await startTracing({ serviceName: 'test', env })).enabled).toBe(false);
  });

  it('starts once with an exporter, and a second call returns the running instance', async () => {
    tracing = await startTracing({ serviceName: 'telemetry-test', exporter });
    expect(tracing.enabled).toBe(true);
    expect(await startTracing({ serviceName: 'other', exporter: new InMemorySpanExporter() })).toBe(tracing);
    expect(activeTracing()).toBe(tracing);
  });

  it('traces SQL inside traced work as child spans, and only there', async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({
      connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    });
    await client.connect();
    try {
      await client.query('SELECT 1 AS untraced');
      const traceId = await trace.getTracer('test').startActiveSpan('unit of work', async (span) => {
        await client.query('SELECT $1::int AS traced', [42]);
        span.end();
        return span.spanContext().traceId;
      });
      const spans = spansOfTrace(traceId);
      const root = spans.find((s) => s.name === 'unit of work')!;
      const query = spans.find((s) => s.attributes['db.system.name'] === 'postgresql')!;
      expect(query.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(query.attributes['db.query.text']).toBe('SELECT $1::int AS traced');
      expect(JSON.stringify(query.attributes)).not.toContain('42');
      expect(
        exporter.getFinishedSpans().some((s) => String(s.attributes['db.query.text']).includes('untraced')),
      ).toBe(false);
      expect(root.resource.attributes['service.name']).toBe('telemetry-test');
    } finally {
      await client.end();
    }
  });

  it('traces HTTP requests by route with capability tokens (uploads, plan logs) redacted, and skips probes', async () => {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.put('/api/v2/uploads/:token', async () => ({ ok: true }));
    app.get('/api/v2/plan-logs/:token', async () => 'log');
    app.get('/healthz', async () => ({ status: 'ok' }));
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const secret = 'cap-0123456789abcdef';
      await fetch(`${base}/api/v2/uploads/${secret}`, { method: 'PUT', body: 'x' });
      await fetch(`${base}/api/v2/plan-logs/${secret}?offset=0&limit=10`);
      await fetch(`${base}/healthz`);
      await tracing!.forceFlush();
      const spans = exporter.getFinishedSpans();
      const server = spans.find(
        (s) => s.attributes['http.route'] === '/api/v2/uploads/:token' && s.kind === 1,
      );
      expect(server?.name).toBe('PUT /api/v2/uploads/:token');
      expect(server?.attributes['url.path']).toBe('/api/v2/uploads/:token');
      const log = spans.find(
        (s) => s.attributes['http.route'] === '/api/v2/plan-logs/:token' && s.kind === 1,
      );
      expect(log?.attributes['url.path']).toBe('/api/v2/plan-logs/:token');
      expect(JSON.stringify(spans.map((s) => [s.name, s.attributes]))).not.toContain(secret);
      expect(spans.some((s) => String(s.attributes['url.path'] ?? '').includes('healthz'))).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('keeps the active context across awaits (async context manager)', async () => {
    await trace.getTracer('test').startActiveSpan('outer', async (span) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(trace.getSpan(context.active())?.spanContext().spanId).toBe(span.spanContext().spanId);
      span.end();
    });
  });
});
