// The layering rules of CONVENTIONS ("imports point inward", "Inside a service"): a service's domain/
// imports no transport, SQL, SDK or adapter module; rpc/ and consumers/ only translate (no repository,
// query, transaction or outbox write); use-cases/ knows no transport. biome.json enforces them with
// noRestrictedImports; `npm test` lints the tree. This test proves the rules bite: it lints probe files
// laid out like the services, with the repository's own biome.json, and reads which imports it reports.
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
  '../use-cases/policy-sets.js',
];
const ALLOWED_IN_DOMAIN = ['@policyhub/errors', '@policyhub/permissions', './names.js', 'node:crypto'];

const work = mkdtempSync(join(tmpdir(), 'policyhub-layering-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Lints one probe file per import statement at `services/<service>/src/<folder>/` and returns the
 * statements the rule reports.
 */
function restrictedStatements(folder: string, statements: string[], service = 'policy-sets'): string[] {
  const root = mkdtempSync(join(work, `${folder}-`));
  copyFileSync(join(repoRoot, 'biome.json'), join(root, 'biome.json'));
  const dir = join(root, 'services', service, 'src', folder);
  mkdirSync(dir, { recursive: true });
  statements.forEach((statement, i) => {
    writeFileSync(join(dir, `probe-${i}.ts`), `${statement}\nexport const x = 1;\n`);
  });
  const result = spawnSync(biome, ['lint', '--reporter=json', '.'], { cwd: root, encoding: 'utf8' });
  const report = JSON.parse(result.stdout) as {
    diagnostics: Array<{ category: string; location: { path: string } }>;
  };
  return report.diagnostics
    .filter((d) => d.category === 'lint/style/noRestrictedImports')
    .map((d) => statements[Number(/probe-(\d+)\.ts$/.exec(d.location.path)?.[1])] ?? d.location.path)
    .sort();
}

/** restrictedStatements for `import * as m from '<specifier>'` of each specifier; returns the specifiers. */
function restrictedImports(folder: string, specifiers: string[]): string[] {
  const statement = (specifier: string) => `import * as m from '${specifier}';\nexport const y = m;`;
  const flagged = new Set(restrictedStatements(folder, specifiers.map(statement)));
  return specifiers.filter((s) => flagged.has(statement(s))).sort();
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

const FORBIDDEN_IN_RPC = [
  "import { PolicySetRepository } from '../db/policy-set-repository.js';",
  "import { findApplicablePolicySets } from '../db/applicable-policy-sets-query.js';",
  "import { isForeignKeyViolation } from '../db/foreign-key.js';",
  "import * as repository from '../db/policy-set-repository.js';",
  "import type { Db } from '@policyhub/db';",
  "import { pageInfo, pageWindow } from '@policyhub/db';",
  "import pg from 'pg';",
  "import { enqueueWorkspaceDeleted } from '../events/tenancy-events.js';",
];
const ALLOWED_IN_RPC = [
  "import type { PolicySetRow } from '../db/policy-set-repository.js';",
  "import type { TokenRow, UserRow } from '../db/identity-repository.js';",
  "import type { PolicySetUseCases } from '../use-cases/policy-sets.js';",
  "import { applyUploadCompleted } from '../use-cases/upload-completed.js';",
  "import { canManagePolicies } from '../domain/access.js';",
  "import { contracts, policyKind } from '@policyhub/contracts';",
  "import type { Handlers } from '@policyhub/grpc-runtime';",
  "import { startConsumer, TOPICS } from '@policyhub/events';",
  "import { toPolicySet } from './mappers.js';",
];

describe('layering: rpc/ and consumers/ only translate', () => {
  for (const service of ['policy-sets', 'admin-orgs']) {
    for (const folder of ['rpc', 'consumers']) {
      it(`reports repositories, queries, transactions and outbox writes in ${service}/src/${folder}/`, () => {
        expect(restrictedStatements(folder, FORBIDDEN_IN_RPC, service)).toEqual([...FORBIDDEN_IN_RPC].sort());
      });
    }
  }

  it('allows row types, use cases, domain rules, contracts and the gRPC and event runtimes in rpc/', () => {
    expect(restrictedStatements('rpc', ALLOWED_IN_RPC)).toEqual([]);
    expect(restrictedStatements('rpc', ALLOWED_IN_RPC, 'admin-orgs')).toEqual([]);
  });
});

const FORBIDDEN_IN_USE_CASES = [
  '@grpc/grpc-js',
  '@policyhub/grpc-runtime',
  '@policyhub/contracts',
  'fastify',
  '@fastify/cors',
  'node:http2',
  '../rpc/mappers.js',
  '../consumers/upload-completed.js',
  '../clients/admin-orgs-lookup.js',
  '../server.js',
];
const ALLOWED_IN_USE_CASES = [
  '@policyhub/db',
  '@policyhub/events',
  '@policyhub/permissions',
  '@policyhub/errors',
  '../db/policy-set-repository.js',
  '../events/tenancy-events.js',
  '../domain/ports.js',
  '../deps.js',
  './visible-policy-set.js',
  'node:crypto',
];

describe('layering: use-cases/ knows no transport', () => {
  it('reports gRPC, HTTP, wire contracts and the edges of the service in use-cases/', () => {
    expect(restrictedImports('use-cases', FORBIDDEN_IN_USE_CASES)).toEqual(
      [...FORBIDDEN_IN_USE_CASES].sort(),
    );
  });

  it('allows repositories, transactions, the outbox, ports and the permission model in use-cases/', () => {
    expect(restrictedImports('use-cases', ALLOWED_IN_USE_CASES)).toEqual([]);
  });
});
