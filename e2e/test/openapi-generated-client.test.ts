import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, uniqueName } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * The served OpenAPI document is good enough for a client generator: openapi-typescript (which
 * validates the document with Redocly's parser) generates its types, a client written against
 * them with openapi-fetch type-checks, and that client then talks to a running system.
 */

let t: TestSystem;
let org: Awaited<ReturnType<typeof createOrganization>>;
// Under the repository's node_modules, so the generated client resolves openapi-fetch.
const dir = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../node_modules/.cache/policyhub-openapi-client',
  uniqueName('c'),
);
beforeAll(async () => {
  t = await startTestSystem();
  org = await createOrganization(t, 'oapi');
  mkdirSync(dir, { recursive: true });
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t?.stop();
});

/** A client as a user of the generated types writes it; every call is checked against them. */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function session(baseUrl: string, token: string, org: string, name: string) {
  const client = createClient<paths>({
    baseUrl,
    headers: { Authorization: \`Bearer \${token}\`, 'Content-Type': 'application/vnd.api+json' },
  });
  const created = await client.POST('/api/v2/organizations/{org}/policy-sets', {
    params: { path: { org } },
    body: { data: { type: 'policy-sets', attributes: { name } } },
  });
  const setId = created.data!.data.id;
  const parameter = await client.POST('/api/v2/policy-sets/{id}/parameters', {
    params: { path: { id: setId } },
    body: { data: { type: 'vars', attributes: { key: 'region', value: 'eu', category: 'policy-set' } } },
  });
  const listed = await client.GET('/api/v2/policy-sets/{id}/parameters', { params: { path: { id: setId } } });
  const missing = await client.GET('/api/v2/policy-checks/{id}/output', {
    params: { path: { id: 'polchk-doesnotexist0000' } },
    parseAs: 'text',
  });
  return {
    setStatus: created.response.status,
    parameterKey: parameter.data?.data.attributes.key,
    listedKeys: listed.data?.data.map((p) => p.attributes.key),
    missing: { status: missing.response.status, type: missing.response.headers.get('content-type')?.split(';')[0] },
  };
}
`;

describe('a client generated from the served OpenAPI document', () => {
  it('is generated, type-checks, and works against a running system', async () => {
    const res = await fetch(`${t.system.baseUrl}/api/v2/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as Parameters<typeof openapiTS>[0];

    writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(document)));
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    const program = ts.createProgram([join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);

    const { session } = (await import(join(dir, 'client.ts'))) as {
      session: (baseUrl: string, token: string, org: string, name: string) => Promise<unknown>;
    };
    expect(await session(t.system.baseUrl, org.owner.token, org.name, uniqueName('gen'))).toEqual({
      setStatus: 201,
      parameterKey: 'region',
      listedKeys: ['region'],
      missing: { status: 404, type: 'application/vnd.api+json' },
    });
  });

  it('names every operation once (operationId), and declares servers', async () => {
    const document = (await (await fetch(`${t.system.baseUrl}/api/v2/openapi.json`)).json()) as {
      servers?: unknown[];
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const ids = Object.values(document.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(ids.filter((id) => !id || !/^[a-z]+[A-Z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.servers).toHaveLength(1);
  });
});
