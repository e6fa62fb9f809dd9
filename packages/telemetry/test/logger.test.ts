import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { startTracing, type Tracing } from '../src/tracing.js';

/** A pino destination that keeps every line, parsed. */
function captureLines() {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { stream, lines, raw };
}

let tracing: Tracing;
beforeAll(async () => {
  tracing = await startTracing({ serviceName: 'logger-test', exporter: new InMemorySpanExporter() });
});
afterAll(async () => {
  await tracing.shutdown();
});

describe('structured logs', () => {
  it('carry the trace and span ids of the active span, and none outside a span', async () => {
    const out = captureLines();
    const logger = createLogger('policy-sets', 'info', out.stream);
    logger.info('before');
    const ids = trace.getTracer('test').startActiveSpan('work', (span) => {
      logger.info({ versionId: 'polsetver-1' }, 'inside');
      span.end();
      return span.spanContext();
    });
    logger.info('after');

    expect(out.lines.map((l) => [l.msg, l.trace_id, l.span_id])).toEqual([
      ['before', undefined, undefined],
      ['inside', ids.traceId, ids.spanId],
      ['after', undefined, undefined],
    ]);
    expect(out.lines[1]).toMatchObject({ service: 'policy-sets', versionId: 'polsetver-1' });
  });

  it('redact tokens and authorization headers wherever they are logged', () => {
    const out = captureLines();
    const logger = createLogger('gateway', 'info', out.stream);
    const token = 'ph.super-secret-token-value';
    logger.info({ req: { headers: { authorization: `Bearer ${token}`, cookie: 'session=abc' } } }, 'request');
    logger.info({ headers: { authorization: `Bearer ${token}` } }, 'headers');
    logger.info({ token, user: { token } }, 'token fields');
    logger.info({ config: { SITE_ADMIN_TOKEN: token, DATABASE_URL: 'postgres://u:pw@db/x' } }, 'config');

    const text = out.raw.join('\n');
    expect(text).not.toContain(token);
    expect(text).not.toContain('Bearer');
    expect(text).not.toContain('session=abc');
    expect(text).not.toContain('pw@db');
    expect(out.lines[0]).toMatchObject({ req: { headers: { authorization: '[redacted]' } } });
  });

  it('mask token-shaped strings wherever they appear, such as an error quoting its input', () => {
    const out = captureLines();
    const logger = createLogger('admin-orgs', 'info', out.stream);
    const token = 'ph.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd';
    logger.error({ err: new Error(`no user for ${token}`) }, 'lookup failed');
    logger.warn(`retrying with header "Authorization: Bearer opaque-value-123"`);

    const text = out.raw.join('\n');
    expect(text).not.toContain(token);
    expect(text).not.toContain('opaque-value-123');
    expect(out.lines[0]).toMatchObject({ err: { message: 'no user for [redacted]' } });
    expect(out.lines[1]?.msg).toBe('retrying with header "Authorization: Bearer [redacted]"');
  });
});
