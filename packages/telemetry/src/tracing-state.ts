/**
 * The process's tracing handle, kept on globalThis so the preload (register.ts) and the
 * application share it however each was loaded. Free of SDK imports: anything may use it.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** Exports what has ended so far. */
  forceFlush(): Promise<void>;
  /** Flushes and stops; resolves at once when tracing is off. */
  shutdown(): Promise<void>;
}

export const TRACING_OFF: Tracing = { enabled: false, forceFlush: async () => {}, shutdown: async () => {} };

const ACTIVE = Symbol.for('policyhub.telemetry.tracing');
type WithTracing = typeof globalThis & { [ACTIVE]?: Tracing };

export const activeTracing = (): Tracing | undefined => (globalThis as WithTracing)[ACTIVE];

export function setActiveTracing(tracing: Tracing | undefined): void {
  if (tracing) (globalThis as WithTracing)[ACTIVE] = tracing;
  else delete (globalThis as WithTracing)[ACTIVE];
}

/** Flushes and stops tracing if it was started; composition roots await it before exiting. */
export async function shutdownTracing(): Promise<void> {
  await activeTracing()?.shutdown();
}

/**
 * Whether OTLP export is configured (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, not disabled). The
 * variables are declared in tracing-config.ts but read here directly: the preload calls this
 * before tracing starts, so it may load nothing else (zod included) ahead of the instrumentation.
 */
export function isOtlpConfigured(env: Record<string, string | undefined> = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
