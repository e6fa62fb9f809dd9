import { documented as doc, z } from '@policyhub/config';

/**
 * The OpenTelemetry variables PolicyHub itself reads; the SDK reads these and the rest of OTEL_*
 * (protocol, headers, resource attributes) itself.
 */
export const tracingConfigShape = {
  OTEL_EXPORTER_OTLP_ENDPOINT: doc(
    z.string().optional(),
    'OpenTelemetry collector; this or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` turns trace export on. Other `OTEL_*` variables (`OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_RESOURCE_ATTRIBUTES`, …) are read by the OpenTelemetry Node SDK itself; only traces are exported (metrics: `/metrics`, logs: stdout)',
    'unset → no tracing (the SDK is not even loaded)',
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: doc(z.string().optional(), 'the collector for traces only'),
  OTEL_SDK_DISABLED: doc(z.string().optional(), '`true` turns tracing off even with an endpoint'),
  OTEL_TRACES_EXPORTER: doc(z.string().optional(), '`none` turns tracing off even with an endpoint'),
  OTEL_SERVICE_NAME: doc(
    z.string().optional(),
    '`service.name` of the spans',
    'the `services/<name>` folder of the entry point; `policyhub` for `npm start`',
  ),
};
