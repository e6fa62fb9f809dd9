// The layering rule of CONVENTIONS ("imports point inward"): a service's domain/ imports no transport,
// SQL, SDK or adapter module. biome.json enforces it with noRestrictedImports on services/*/src/domain;
// `npm test` lints the tree. This test proves the rule bites: it lints probe files laid out like the
// services, with the repository's own biome.json, and reads which imports the rule reports.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const biome = join(repoRoot, 'node_modules', '.bin', 'biome');

const FORBIDDEN_IN_DOMAIN = [
  'pg',
  '@grpc/grpc-js',
  'kafkajs',
  'minio',
  'ioredis',
  'fastify',
  '@opentelemetry/api',
  '@policyhub/grpc-runtime',
  '@policyhub/db',
  '@policyhub/events',
  '@policyhub/contracts',
  '../db/policy-set-repository.js',
  '../rpc/handlers.js',
  '../clients/admin-orgs-client.js',
];
const ALLOWED_IN_DOMAIN = ['@policyhub/errors', '@policyhub/permissions', './names.js', 'node:crypto'];

const work = mkdtempSync(join(tmpdir(), 'policyhub-layering-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Lints one probe file per import at `services/policy-sets/src/<folder>/` and returns the flagged ones. */
function restrictedImports(folder: string, specifiers: string[]): string[] {
  const root = mkdtempSync(join(work, `${folder}-`));
  copyFileSync(join(repoRoot, 'biome.json'), join(root, 'biome.json'));
  const dir = join(root, 'services', 'policy-sets', 'src', folder);
  mkdirSync(dir, { recursive: true });
  specifiers.forEach((specifier, i) => {
    writeFileSync(join(dir, `probe-${i}.ts`), `import * as m from '${specifier}';\nexport const x = m;\n`);
  });
  const result = spawnSync(biome, ['lint', '--reporter=json', '.'], { cwd: root, encoding: 'utf8' });
  const report = JSON.parse(result.stdout) as {
    diagnostics: Array<{ category: string; location: { path: string } }>;
  };
  return report.diagnostics
    .filter((d) => d.category === 'lint/style/noRestrictedImports')
    .map((d) => specifiers[Number(/probe-(\d+)\.ts$/.exec(d.location.path)?.[1])] ?? d.location.path)
    .sort();
}

describe('layering: domain/ imports point inward', () => {
  it('reports every transport, SQL, SDK and adapter import from domain/', () => {
    expect(restrictedImports('domain', FORBIDDEN_IN_DOMAIN)).toEqual([...FORBIDDEN_IN_DOMAIN].sort());
  });

  it('allows the error catalog, the permission model, sibling modules and node built-ins in domain/', () => {
    expect(restrictedImports('domain', ALLOWED_IN_DOMAIN)).toEqual([]);
  });

  it('leaves adapters free to import their SDKs', () => {
    expect(restrictedImports('db', FORBIDDEN_IN_DOMAIN)).toEqual([]);
  });
});
