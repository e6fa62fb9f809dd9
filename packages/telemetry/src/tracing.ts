import type { IncomingMessage } from 'node:http';
import { createRequire, register } from 'node:module';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { redactPath } from './redact.js';
import {
  activeTracing,
  isOtlpConfigured,
  setActiveTracing,
  type Tracing,
  TRACING_OFF,
} from './tracing-state.js';

export { isOtlpConfigured, shutdownTracing, type Tracing } from './tracing-state.js';

export interface TracingOptions {
  /** `service.name` of every span; OTEL_SERVICE_NAME wins when set. */
  serviceName: string;
  /**
   * Export finished spans here, one by one, instead of over OTLP (tests pass an
   * InMemorySpanExporter). Turns tracing on even without OTEL_EXPORTER_OTLP_ENDPOINT.
   */
  exporter?: SpanExporter;
  env?: Record<string, string | undefined>;
}

/** Packages whose spans we want; only these go through the ESM loader hook (it costs startup time). */
const INSTRUMENTED_PACKAGES = ['@grpc/grpc-js', 'pg', 'pg-pool', 'ioredis', 'kafkajs'];
/**
 * What the loader hook intercepts: built-ins by name, packages by where they live, because a
 * bundler or test runner may import a package by its resolved file URL rather than its name.
 */
const LOADER_HOOK_INCLUDE: Array<string | RegExp> = [
  'http',
  'https',
  ...INSTRUMENTED_PACKAGES.map((name) => new RegExp(`/node_modules/${name.replace(/[/.]/g, '\\$&')}/`)),
];

/** Probes and scrapes would drown the traces that matter. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts OpenTelemetry tracing for this process: spans for HTTP (and fastify routes), gRPC,
 * pg, ioredis and kafkajs, W3C context propagation, OTLP export configured by the standard
 * OTEL_* variables. Does nothing (and loads none of the SDK) unless an OTLP endpoint is set or
 * an exporter is passed, so embedded mode without OTEL_* behaves exactly as before. Metrics and
 * logs are never exported through the SDK (Prometheus and stdout serve them), so shutdown does
 * not wait on exporters that have nowhere to send.
 *
 * Instrumentation patches modules as they load: call this before anything imports them — from
 * the `--import` preload (register.ts), or before a dynamic import() of the application.
 * Calling it again returns the running instance.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const running = activeTracing();
  if (running) return running;
  const env = options.env ?? process.env;
  if (!options.exporter && !isOtlpConfigured(env)) return TRACING_OFF;

  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: [...INSTRUMENTED_PACKAGES, ...LOADER_HOOK_INCLUDE] },
  });
  const [{ NodeSDK }, { SimpleSpanProcessor }, instrumentations] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/sdk-trace-base'),
    createInstrumentations(),
  ]);
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || options.serviceName,
    // Without an explicit processor the SDK builds the OTLP batch exporter from OTEL_* itself.
    ...(options.exporter ? { spanProcessors: [new SimpleSpanProcessor(options.exporter)] } : {}),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations,
  });
  sdk.start();
  patchInstrumentedPackages();

  const { trace } = await import('@opentelemetry/api');
  const tracing: Tracing = {
    enabled: true,
    forceFlush: async () => {
      const provider = trace.getTracerProvider() as { forceFlush?: () => Promise<void> };
      await provider.forceFlush?.();
    },
    shutdown: async () => {
      setActiveTracing(undefined);
      await sdk.shutdown();
    },
  };
  setActiveTracing(tracing);
  return tracing;
}

async function createInstrumentations() {
  const [http, fastify, grpc, pg, ioredis, kafkajs] = await Promise.all([
    import('@opentelemetry/instrumentation-http'),
    import('@fastify/otel'),
    import('@opentelemetry/instrumentation-grpc'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-kafkajs'),
  ]);
  return [
    new http.HttpInstrumentation({
      ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(pathOf(request)),
      // Upload URLs are capabilities: the span keeps the route, never the token.
      startIncomingSpanHook: (request) => ({ 'url.path': redactPath(pathOf(request)) }),
    }),
    // One span per request with its route (also given to the HTTP span's name); no span per hook
    // or handler, whose names would be anonymous plugin sources.
    new fastify.FastifyOtelInstrumentation({
      registerOnInitialization: true,
      instrumentHooks: false,
      instrumentHandler: false,
      ignorePaths: (route: { url?: string }) => UNTRACED_PATHS.has(route.url ?? ''),
      requestHook: (span: { setAttribute(key: string, value: string): void }, request: { url: string }) =>
        span.setAttribute('url.path', redactPath(request.url.split('?')[0] ?? '')),
    }),
    new grpc.GrpcInstrumentation(),
    // Only inside a request, consumer or other traced work: no orphan spans for pool upkeep,
    // LISTEN connections or the relay's polling.
    new pg.PgInstrumentation({ requireParentSpan: true }),
    // Command names only: arguments carry cache keys and cached principals.
    new ioredis.IORedisInstrumentation({
      requireParentSpan: true,
      dbStatementSerializer: (command) => command,
    }),
    new kafkajs.KafkaJsInstrumentation(),
  ];
}

/**
 * Loads each instrumented CommonJS package once through require(), which the instrumentations
 * intercept, so their exports are patched in the module cache before the application imports
 * them — whatever specifier it uses: test runners import packages by resolved file path, which
 * the ESM loader hook cannot attribute to a package. Packages a process lacks are skipped.
 */
function patchInstrumentedPackages(): void {
  const require = createRequire(import.meta.url);
  for (const name of INSTRUMENTED_PACKAGES) {
    try {
      require(name);
    } catch {
      // Not installed where this process runs: nothing of it to trace.
    }
  }
}

const pathOf = (request: IncomingMessage): string => (request.url ?? '/').split('?')[0] ?? '/';
