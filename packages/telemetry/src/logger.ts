import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths that may carry secrets; pino replaces them before anything is written. */
export const REDACTED_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'config.SITE_ADMIN_TOKEN',
  'config.S3_SECRET_KEY',
  'config.DATABASE_URL',
];

/**
 * Structured JSON logs with the service name and, inside a span, the trace and span ids.
 * Secrets are redacted by path; the upload capability path is never logged (see gateway).
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const ctx = span.spanContext();
      return { trace_id: ctx.traceId, span_id: ctx.spanId };
    },
  });
}
