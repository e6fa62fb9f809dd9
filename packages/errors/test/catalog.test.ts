import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, ERROR_KINDS, type ErrorCode } from '../src/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const doc = readFileSync(join(root, 'docs', 'errors.md'), 'utf8');

/** Every markdown table of docs/errors.md: its header cells and rows of cells. */
function tables(markdown: string): Array<{ header: string[]; rows: string[][] }> {
  const out: Array<{ header: string[]; rows: string[][] }> = [];
  let current: { header: string[]; rows: string[][] } | undefined;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      current = undefined;
      continue;
    }
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (!current) {
      current = { header: cells, rows: [] };
      out.push(current);
    } else if (!cells.every((c) => /^-+$/.test(c))) {
      current.rows.push(cells);
    }
  }
  return out;
}

const codesIn = (cell: string): string[] => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!);

/** (code, column, value) for every code the document gives an HTTP or gRPC status. */
function documented(): Array<{ code: string; http?: number; grpc?: string }> {
  const out: Array<{ code: string; http?: number; grpc?: string }> = [];
  for (const { header, rows } of tables(doc)) {
    const codeAt = header.indexOf('code');
    const httpAt = header.indexOf('HTTP');
    const grpcAt = header.indexOf('gRPC status');
    if (codeAt === -1 || (httpAt === -1 && grpcAt === -1)) continue;
    for (const row of rows) {
      for (const code of codesIn(row[codeAt] ?? '')) {
        if (httpAt !== -1) out.push({ code, http: Number.parseInt(row[httpAt] ?? '', 10) });
        else out.push({ code, grpc: row[grpcAt] });
      }
    }
  }
  return out;
}

describe('docs/errors.md and the catalog', () => {
  const rows = documented();

  it('list the same codes', () => {
    expect([...new Set(rows.map((r) => r.code))].sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
  });

  it.each(rows.map((r) => [r.code, r.http ?? r.grpc, r] as const))('%s is %s', (_code, _status, row) => {
    const kind = ERROR_CATALOG[row.code as ErrorCode];
    if (row.http !== undefined) expect(ERROR_KINDS[kind].http).toBe(row.http);
    else expect(ERROR_KINDS[kind].grpc).toBe(row.grpc);
  });

  it('agree on the kind table (gRPC status and HTTP status of each kind)', () => {
    const kindTable = tables(doc).find((t) => t.header[0] === 'domain kind');
    const fromDoc = Object.fromEntries(
      (kindTable?.rows ?? []).map((r) => [
        /`([a-z_]+)`/.exec(r[0] ?? '')?.[1],
        { grpc: r[1], http: Number.parseInt(r[2] ?? '', 10) },
      ]),
    );
    expect(fromDoc).toEqual(ERROR_KINDS);
  });
});

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (f === 'node_modules' || f === 'generated' || f === 'dist') return [];
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
const serviceSources = readdirSync(join(root, 'services')).flatMap((s) =>
  sources(join(root, 'services', s, 'src')).map((p) => ({
    service: s,
    path: p,
    text: readFileSync(p, 'utf8'),
  })),
);
/** A string starting with a service's code prefix, and what follows it (a quote, or `${` in a template). */
const CODE_LITERAL = /['"`]((?:ADMIN_ORGS|POLICY_SETS|RUNS|STORAGE|GATEWAY)_[A-Z0-9_]*)(['"`]|\$\{)/g;
/** Reasons a version is `errored` with (its `error` attribute), not error codes (docs/errors.md). */
const VERSION_ERROR_REASONS = new Set(['POLICY_SETS_ORGANIZATION_UNAVAILABLE']);

describe('codes in the source', () => {
  it('are literals from the catalog (none built at run time)', () => {
    const unknown = serviceSources.flatMap(({ path, text }) =>
      [...text.matchAll(CODE_LITERAL)]
        // A prefix (`code.startsWith('STORAGE_UPLOAD_')`) is no code; a template building one is.
        .filter((m) => m[2] === '${' || !m[1]!.endsWith('_'))
        .map((m) => (m[2] === '${' ? `${m[1]}\${…}` : m[1]!))
        .filter((c) => !Object.hasOwn(ERROR_CATALOG, c) && !VERSION_ERROR_REASONS.has(c))
        .map((c) => `${path.slice(root.length + 1)}: ${c}`),
    );
    expect(unknown).toEqual([]);
  });

  it('services outside the gateway name fields, never JSON:API pointers or wire names', () => {
    const pointers = serviceSources
      .filter(({ service }) => service !== 'gateway')
      .flatMap(({ path, text }) =>
        [...text.matchAll(/['"`]\/data\b[^'"`]*/g)].map((m) => `${path.slice(root.length + 1)}: ${m[0]}`),
      );
    expect(pointers).toEqual([]);
  });
});
