import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { waitFor } from '@policyhub/testing';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The tracing entry point by path: the workspace alias maps only the package root.
import { startTracing, type Tracing } from '../../packages/telemetry/src/tracing.js';
import type { TestSystem } from './support/system.js';
import { sentinelHcl } from './support/archives.js';

/**
 * Every service runs in this process (embedded mode) with tracing exported to memory, once with
 * the in-process event bus and once over Kafka (librdkafka's mock broker). Instrumented modules
 * (pg, gRPC, http, kafkajs) must load after startTracing(), so the system is imported dynamically.
 */
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let fixtures: typeof import('./support/fixtures.js');

beforeAll(async () => {
  tracing = await startTracing({ serviceName: 'policyhub', exporter });
  fixtures = await import('./support/fixtures.js');
});
afterAll(async () => {
  await tracing?.shutdown();
});

describe('one trace per request, with the in-process event bus', () => {
  let t: TestSystem;
  beforeAll(async () => {
    const { startTestSystem } = await import('./support/system.js');
    t = await startTestSystem();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('follows an organization create from the gateway through admin-orgs gRPC into SQL', async () => {
    const owner = await fixtures.createUser(t, 'traced');
    const name = fixtures.uniqueName('traced');
    const res = await owner.api.post('/organizations', {
      data: { type: 'organizations', attributes: { name, email: `ops@${name}.example` } },
    });
    expect(res.status, res.text).toBe(201);

    const root = await serverSpanOf('POST', '/api/v2/organizations');
    await waitFor(() => grpcServer(traceOf(root), 'policyhub.adminorgs.v1.Organizations').length > 0);
    const spans = traceOf(root);

    expect(root.name).toBe('POST /api/v2/organizations');
    expect(root.attributes['http.response.status_code']).toBe(201);
    expect(root.resource.attributes['service.name']).toBe('policyhub');
    // Authentication and the create: each a client span in the gateway and a server span in admin-orgs.
    expect(grpcServer(spans, 'policyhub.adminorgs.v1.Identity', 'Authenticate')).toHaveLength(1);
    const create = grpcServer(spans, 'policyhub.adminorgs.v1.Organizations');
    expect(create).toHaveLength(1);
    expect(spans.some((s) => s.kind === SpanKind.CLIENT && s.name === create[0]!.name)).toBe(true);
    // The INSERT runs inside the admin-orgs handler.
    expect(sql(spans, /INSERT INTO organizations/i).some((s) => isWithin(s, create[0]!, spans))).toBe(true);
    expectOneTree(spans, root);
  });

  it('follows an upload from the PUT through storage, the outbox and the policy-sets consumer', async () => {
    await expectUploadTraced(t);
  });
});

describe('one trace per upload, with events over Kafka', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await startKafkaSystem();
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
  }, 60_000);

  it('continues the trace through the Kafka producer, the message headers and the consumer', async () => {
    const { spans, consumer } = await expectUploadTraced(t);
    const sent = spans.filter(
      (s) =>
        s.kind === SpanKind.PRODUCER &&
        s.attributes['messaging.destination.name'] === 'storage.upload-completed',
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]!.attributes['messaging.system']).toBe('kafka');
    expect(isWithin(consumer, sent[0]!, spans)).toBe(true);
  });
});

/**
 * Uploads an archive for a new version and checks its trace: the gateway's request by route (and
 * never the capability token), storage's streamed Upload with the outbox row written in its
 * transaction, and the policy-sets consumer of storage.upload-completed with the version update.
 */
async function expectUploadTraced(t: TestSystem): Promise<{ spans: ReadableSpan[]; consumer: ReadableSpan }> {
  const org = await fixtures.createOrganization(t, 'traced-upload');
  const api = org.owner.api;
  const set = await fixtures.createPolicySet(api, org.name);
  const created = await api.post(`/policy-sets/${set.id}/versions`);
  expect(created.status, created.text).toBe(201);
  const versionId = created.body.data.id as string;
  const uploadUrl = created.body.data.links.upload as string;
  const token = new URL(uploadUrl).pathname.split('/').pop()!;

  const put = await fetch(uploadUrl, {
    method: 'PUT',
    body: await tarball({
      'sentinel.hcl': sentinelHcl('main'),
      'policies/main.sentinel': 'main = rule { true }\n',
    }),
  });
  expect(put.status).toBe(200);
  await waitFor(
    async () =>
      (await api.get(`/policy-set-versions/${versionId}`)).body?.data?.attributes?.status === 'ready',
  );

  const root = await serverSpanOf(
    'PUT',
    '/api/v2/uploads/:token',
    (s) => s.attributes['url.path'] !== undefined,
  );
  const consumed = () =>
    traceOf(root).filter(
      (s) =>
        s.kind === SpanKind.CONSUMER &&
        s.attributes['messaging.destination.name'] === 'storage.upload-completed' &&
        s.attributes['messaging.consumer.group.name'] === 'policy-sets.upload-completed',
    );
  await waitFor(() => consumed().length === 1 && sql(traceOf(root), /COMMIT/).length >= 2);
  const spans = traceOf(root);
  const consumer = consumed()[0]!;

  expect(root.attributes['url.path']).toBe('/api/v2/uploads/:token');
  expect(JSON.stringify(spans.map((s) => [s.name, s.attributes]))).not.toContain(token);
  const upload = grpcServer(spans, 'policyhub.storage.v1.Storage', 'Upload');
  expect(upload).toHaveLength(1);
  expect(sql(spans, /INSERT INTO outbox/i).some((s) => isWithin(s, upload[0]!, spans))).toBe(true);
  expect(isWithin(consumer, upload[0]!, spans)).toBe(true);
  expect(sql(spans, /UPDATE policy_set_versions/i).some((s) => isWithin(s, consumer, spans))).toBe(true);
  expectOneTree(spans, root);
  return { spans, consumer };
}

/** The whole system in this process on a fresh database, with events over a mock Kafka broker. */
async function startKafkaSystem(): Promise<TestSystem> {
  const [{ startSystem }, { createTestDatabase, startMockKafka }, { ApiClient }] = await Promise.all([
    import('@policyhub/embedded'),
    import('@policyhub/testing'),
    import('./support/api.js'),
  ]);
  const db = await createTestDatabase('ph_e2e_trace');
  const kafka = await startMockKafka();
  const dataDir = mkdtempSync(join(tmpdir(), 'policyhub-trace-'));
  const system = await startSystem({
    port: 0,
    validateResponses: true,
    dataDir,
    databaseUrl: db.url,
    kafkaBrokers: kafka.brokers,
    // The mock broker has no idempotent producer.
    kafka: { idempotent: false },
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const client = (token: string) => new ApiClient(system.baseUrl, token);
  return {
    system,
    admin: client(system.siteAdminToken),
    anonymous: new ApiClient(system.baseUrl, undefined),
    client,
    async stop() {
      await system.close();
      await kafka.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The newest ended server span of an HTTP request to `route`. */
async function serverSpanOf(
  method: string,
  route: string,
  accept: (span: ReadableSpan) => boolean = () => true,
): Promise<ReadableSpan> {
  const find = () =>
    exporter
      .getFinishedSpans()
      .filter(
        (s) =>
          s.kind === SpanKind.SERVER &&
          s.attributes['http.request.method'] === method &&
          s.attributes['http.route'] === route &&
          accept(s),
      )
      .at(-1);
  await waitFor(() => find() !== undefined);
  return find()!;
}

const traceOf = (root: ReadableSpan): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === root.spanContext().traceId);

const grpcServer = (spans: ReadableSpan[], service: string, method?: string) =>
  spans.filter(
    (s) =>
      s.kind === SpanKind.SERVER &&
      s.attributes['rpc.service'] === service &&
      (method === undefined || s.attributes['rpc.method'] === method),
  );

const sql = (spans: ReadableSpan[], pattern: RegExp) =>
  spans.filter(
    (s) =>
      s.attributes['db.system.name'] === 'postgresql' && pattern.test(String(s.attributes['db.query.text'])),
  );

/** Every span of the trace hangs off another span of it, up to the one root. */
function expectOneTree(spans: ReadableSpan[], root: ReadableSpan): void {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const orphans = spans.filter((s) => s !== root && !ids.has(s.parentSpanContext?.spanId ?? ''));
  expect(orphans.map((s) => s.name)).toEqual([]);
  expect(root.parentSpanContext).toBeUndefined();
}

/** Whether `span` descends from `ancestor` within `spans`. */
function isWithin(span: ReadableSpan, ancestor: ReadableSpan, spans: ReadableSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  let current: ReadableSpan | undefined = span;
  while (current) {
    const parentId: string | undefined = current.parentSpanContext?.spanId;
    if (parentId === ancestor.spanContext().spanId) return true;
    current = parentId ? byId.get(parentId) : undefined;
  }
  return false;
}

/** A gzipped tar archive holding the given files. */
async function tarball(files: Record<string, string>): Promise<Uint8Array> {
  const archive = pack();
  for (const [name, content] of Object.entries(files)) archive.entry({ name }, content);
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}
