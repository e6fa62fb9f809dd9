import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';

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
  'config.REDIS_URL',
];

/**
 * Anything shaped like a credential, wherever it ended up in a line (an error message quoting
 * its input, a stack, a header dump): API tokens (`ph.` + base64url) and bearer values.
 */
const CREDENTIALS = /\bph\.[A-Za-z0-9_-]{16,}|(?<=\bbearer\s+)[^\s"\\]+/gi;

/**
 * Structured JSON logs with the service name and, inside a span, the trace and span ids.
 * Secrets are redacted by path, and any token-shaped string left in a line is masked before it
 * is written; the upload capability path is never logged (see gateway).
 */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  /** Where lines go (default stdout); tests pass a stream to read them back. */
  destination?: DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    hooks: { streamWrite: (line) => line.replace(CREDENTIALS, '[redacted]') },
    mixin() {
      const ctx = trace.getActiveSpan()?.spanContext();
      if (!ctx || !isSpanContextValid(ctx)) return {};
      return { trace_id: ctx.traceId, span_id: ctx.spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
