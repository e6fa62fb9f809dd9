import { readdir, readFile } from 'node:fs/promises';
import { createLogger } from '@policyhub/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { Clients } from '../src/clients/index.js';
import { generateOpenApiDocument } from '../src/openapi-document.js';
import { OPENAPI_FILE, OPENAPI_PATH } from '../src/plugins/openapi.js';

// No backend is called: the document and the route table need none (no token is checked for
// the document, and no other route is requested).
let app: FastifyInstance;
beforeAll(async () => {
  app = await buildApp({ clients: {} as Clients, logger: createLogger('gateway-test', 'silent') });
  await app.ready();
});
afterAll(() => app.close());

interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>>;
}

/** fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('OpenAPI document', () => {
  it('is served without a token at /api/v2/openapi.json as OpenAPI 3.1', async () => {
    const res = await app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect((res.json() as OpenApi).openapi).toBe('3.1.0');
  });

  it('is also found without the doubled prefix rule getting in the way (/api/v2/api/v2/openapi.json)', async () => {
    const res = await app.inject({ method: 'GET', url: `/api/v2${OPENAPI_PATH}` });
    expect(res.statusCode).toBe(200);
  });

  it('lists every registered route with its method, path parameters and responses', async () => {
    const doc = (await app.inject({ method: 'GET', url: OPENAPI_PATH })).json() as OpenApi;
    // HEAD routes are fastify's automatic twins of GET routes.
    const routes = app.registeredRoutes.filter((r) => r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(60);
    const missing = routes.filter((r) => !doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase()]);
    expect(missing.map((r) => `${r.method} ${r.url}`)).toEqual([]);
    for (const route of routes) {
      const operation = doc.paths[openApiPath(route.url)]![route.method.toLowerCase()]!;
      const documented = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      const inUrl = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
      expect(documented.sort(), `${route.method} ${route.url}`).toEqual(inUrl.sort());
      expect(
        (route.schema as { response?: object } | undefined)?.response,
        `${route.method} ${route.url}`,
      ).toBeDefined();
    }
  });

  it('describes included resources on every read that takes an include value, and on no other', () => {
    interface Parts {
      querystring?: { properties?: Record<string, { description?: string }> };
      response?: Record<string, { additionalProperties?: boolean; properties?: Record<string, unknown> }>;
    }
    const reads = app.registeredRoutes.filter((r) => r.method === 'GET');
    let documents = 0;
    for (const route of reads) {
      const parts = route.schema as Parts | undefined;
      const document = parts?.response?.[200];
      if (!document?.properties?.data) continue;
      documents++;
      const include = parts?.querystring?.properties?.include?.description;
      const takesInclude = include !== undefined && !include.startsWith('Nothing can be included');
      const label = `GET ${route.url}`;
      expect('included' in document.properties, label).toBe(takesInclude);
      expect(document.additionalProperties, `${label} is exact`).toBe(false);
    }
    expect(documents).toBeGreaterThan(25);
  });

  it('is ready for client generators: operationIds, servers, raw upload bodies, optional bodies, JSON:API errors', async () => {
    type Op = {
      operationId?: string;
      requestBody?: { required?: boolean; content: Record<string, unknown> };
      responses: Record<string, { content?: Record<string, unknown> }>;
    };
    const doc = (await app.inject({ method: 'GET', url: OPENAPI_PATH })).json() as {
      servers: unknown[];
      paths: Record<string, Record<string, Op>>;
    };
    const ops = Object.entries(doc.paths).flatMap(([path, m]) =>
      Object.entries(m).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
    );
    const ids = ops.map(({ op }) => op.operationId);
    expect(ops.filter(({ op }) => !op.operationId).map(({ key }) => key)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.servers.length).toBe(1);
    const op = (key: string) => ops.find((o) => o.key === key)!.op;
    expect(op('GET /api/v2/policy-sets/{id}/parameters/{parameter_id}').operationId).toBe(
      'getPolicySetParameter',
    );
    expect(op('POST /api/v2/policy-sets/{id}/relationships/project-exclusions').operationId).toBe(
      'addPolicySetProjectExclusions',
    );
    expect(op('POST /api/v2/policy-checks/{id}/actions/override').operationId).toBe('overridePolicyCheck');
    for (const upload of ['PUT /api/v2/policies/{id}/upload', 'PUT /api/v2/uploads/{token}']) {
      expect(Object.keys(op(upload).requestBody?.content ?? {}), upload).toEqual([
        'application/octet-stream',
      ]);
    }
    expect(op('POST /api/v2/policy-checks/{id}/actions/override').requestBody?.required).toBe(false);
    expect(op('POST /api/v2/workspaces/{id}/configuration-versions').requestBody?.required).toBe(false);
    const errorTypes = new Set(
      ops.flatMap(({ op }) =>
        Object.entries(op.responses)
          .filter(([status]) => /^[45]/.test(status))
          .flatMap(([, r]) => Object.keys(r.content ?? {})),
      ),
    );
    expect([...errorTypes]).toEqual(['application/vnd.api+json']);
  });

  it('is linked from every API guide', async () => {
    const dir = new URL('../../../docs/api/', import.meta.url);
    const guides = (await readdir(dir)).filter((name) => name.endsWith('.md'));
    expect(guides.length).toBeGreaterThan(3);
    for (const guide of guides) {
      const text = await readFile(new URL(guide, dir), 'utf8');
      expect(text, `docs/api/${guide} links to [openapi.json](openapi.json)`).toContain('(openapi.json)');
    }
  });

  it('names every attribute of every response resource in the API guides', async () => {
    const doc = (await app.inject({ method: 'GET', url: OPENAPI_PATH })).json() as {
      components: { schemas: Record<string, { properties?: { attributes?: { properties?: object } } }> };
    };
    const dir = new URL('../../../docs/api/', import.meta.url);
    const guides = await Promise.all(
      (await readdir(dir)).filter((n) => n.endsWith('.md')).map((n) => readFile(new URL(n, dir), 'utf8')),
    );
    const text = guides.join('\n');
    const resources = Object.entries(doc.components.schemas).filter(([, s]) => s.properties?.attributes);
    expect(resources.length).toBeGreaterThan(12);
    const unnamed = resources.flatMap(([name, s]) =>
      Object.keys(s.properties!.attributes!.properties ?? {})
        .filter((attribute) => !text.includes(`\`${attribute}\``))
        .map((attribute) => `${name}.${attribute}`),
    );
    expect(unnamed).toEqual([]);
  });

  it(`is committed up to date in ${OPENAPI_FILE}`, async () => {
    const committed = await readFile(new URL(`../../../${OPENAPI_FILE}`, import.meta.url), 'utf8');
    const generated = await generateOpenApiDocument();
    expect(
      committed === generated,
      `${OPENAPI_FILE} is stale: run \`npm run openapi\` and commit the result`,
    ).toBe(true);
  });
});
