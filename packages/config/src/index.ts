import { z } from 'zod';

export { z };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads typed configuration from environment variables. Every variable is validated at once and
 * every problem is reported on its own line, so a bad deployment fails fast with one clear message.
 */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<z.ZodObject<S>> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(shape)) {
    const value = env[key];
    input[key] = value === '' ? undefined : value;
  }
  const result = z.object(shape).safeParse(input);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const key = String(issue.path[0] ?? '?');
        const raw = input[key];
        return `${key}: ${issue.message}${raw === undefined ? ' (unset)' : ` (got "${redact(key, raw)}")`}`;
      }),
    );
  }
  return result.data;
}

const redact = (key: string, value: string): string =>
  /TOKEN|SECRET|PASSWORD|KEY/i.test(key) ? '***' : value;

/** Reusable field types with the project's conventions. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  /** A gRPC target: `host:port`, optionally `dns:///host:port` (every address of the name: ADR 0025). */
  address: (fallback: string) =>
    z
      .string()
      .regex(/^(?:dns:\/\/\/)?(?:[^\s:/]+|\[[0-9a-fA-F:]+\]):\d+$/, 'must be host:port or dns:///host:port')
      .default(fallback),
  url: () => z.string().url('must be a URL'),
  optionalUrl: () => z.string().url('must be a URL').optional(),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  int: (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback),
  brokers: () =>
    z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .optional(),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A required string turned into a value by `parse`, whose thrown message is the problem reported. */
  parsed: <T>(parse: (value: string) => T, requiredMessage = 'is required') =>
    z.string({ message: requiredMessage }).transform((value, ctx): T => {
      try {
        return parse(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
};

export {
  configDocs,
  configTable,
  type ConfigDoc,
  type ConfigRow,
  describeConfig,
  documented,
  testOnly,
} from './docs.js';
