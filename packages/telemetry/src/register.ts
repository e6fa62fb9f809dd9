/**
 * Preload that starts tracing before the application's modules load, so they can be
 * instrumented: `node --import @policyhub/telemetry/register services/<name>/dist/main.js`
 * (or in NODE_OPTIONS). Without OTEL_EXPORTER_OTLP_ENDPOINT it does nothing and loads no SDK.
 * The service name is OTEL_SERVICE_NAME, else the `services/<name>` folder of the entry point,
 * else `policyhub` (embedded mode).
 */
import { isOtlpConfigured } from './tracing-state.js';

if (isOtlpConfigured()) {
  const { startTracing } = await import('./tracing.js');
  await startTracing({ serviceName: serviceNameOf(process.argv[1] ?? '') });
}

function serviceNameOf(entryPoint: string): string {
  const match = /[/\\]services[/\\]([^/\\]+)[/\\]/.exec(entryPoint);
  return match?.[1] ?? 'policyhub';
}
