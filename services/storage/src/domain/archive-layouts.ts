import { posix } from 'node:path';
import {
  type ArchiveRejection,
  type ArchiveRejectionCode,
  quotePath,
  rejection,
} from './archive-rejections.js';

/**
 * The layouts an upload's owner can require of an archive (CreateUploadSession's `layout`): none,
 * a Sentinel policy set (`sentinel.hcl`) or an OPA policy set (`policies.hcl`/`policies.json`),
 * found in `root` (e.g. the set's policies path). Storage knows the file formats, not what the
 * owner does with them.
 */
export type ArchiveLayout = '' | 'sentinel' | 'opa';
export const ARCHIVE_LAYOUTS: readonly ArchiveLayout[] = ['', 'sentinel', 'opa'];
export const isArchiveLayout = (v: string): v is ArchiveLayout =>
  (ARCHIVE_LAYOUTS as readonly string[]).includes(v);

/** Configuration files above this size are refused (a policy set's is a few KiB). */
export const MAX_CONFIG_BYTES = 64 * 1024;

/** The configuration files a layout looks for, in order of preference, as archive paths. */
export function configPaths(layout: ArchiveLayout, root: string): string[] {
  const names =
    layout === 'sentinel' ? ['sentinel.hcl'] : layout === 'opa' ? ['policies.hcl', 'policies.json'] : [];
  return names.map((n) => (root === '' ? n : `${root}/${n}`));
}

export interface LayoutInput {
  layout: ArchiveLayout;
  root: string;
  /** The captured configuration files by archive path (only those configPaths() names). */
  configs: ReadonlyMap<string, string>;
  /** Every regular file and link in the archive (normalised paths). */
  entries: ReadonlySet<string>;
}

/**
 * Parses HCL native syntax into the JSON shape of hcl2json. Rejects with HclSyntaxError when the
 * text is not valid HCL; any other rejection is a fault of the parser, not of the archive.
 */
export type ParseHcl = (filename: string, text: string) => Promise<unknown>;

export class HclSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HclSyntaxError';
  }
}

const SENTINEL_BLOCKS = new Set([
  'policy',
  'module',
  'param',
  'import',
  'mock',
  'global',
  'sentinel',
  'test',
]);
const SENTINEL_LEVELS = new Set(['advisory', 'soft-mandatory', 'hard-mandatory']);
const SENTINEL_IMPORT_TYPES = new Set(['plugin', 'module', 'static']);
const OPA_LEVELS = new Set(['advisory', 'mandatory']);

class LayoutError extends Error {
  constructor(
    readonly code: ArchiveRejectionCode,
    message: string,
  ) {
    super(message);
  }
}

/** Checks the archive against its required layout; undefined when it conforms (or none is required). */
export async function checkLayout(
  input: LayoutInput,
  parseHcl: ParseHcl,
): Promise<ArchiveRejection | undefined> {
  if (input.layout === '') return undefined;
  try {
    if (input.layout === 'sentinel') await checkSentinel(input, parseHcl);
    else await checkOpa(input, parseHcl);
    return undefined;
  } catch (err) {
    if (err instanceof LayoutError) return rejection(err.code, err.message);
    throw err;
  }
}

async function checkSentinel(input: LayoutInput, parseHcl: ParseHcl) {
  const [path] = configPaths('sentinel', input.root) as [string];
  const config = await readConfig(input, path, parseHcl);
  const fail = (message: string, code: ArchiveRejectionCode = 'STORAGE_ARCHIVE_CONFIG_INVALID') => {
    throw new LayoutError(code, `${path}: ${message}`);
  };
  for (const key of config.keys()) {
    if (!SENTINEL_BLOCKS.has(key)) fail(`unknown block or attribute ${quotePath(key)}`);
  }
  const source = (what: string, body: Map<string, unknown>) => {
    const value = body.get('source');
    if (value === undefined) fail(`${what} has no source`);
    checkSource(input, path, what, value, fail);
  };

  const policies = namedBlocks(config, 'policy', fail);
  if (policies.length === 0) fail('declares no policy');
  for (const [name, body] of policies) {
    const what = `policy ${quotePath(name)}`;
    source(what, body);
    checkLevel(body, SENTINEL_LEVELS, what, fail);
    const params = body.get('params');
    if (params !== undefined && !isObject(params)) fail(`${what} has params that are not an object`);
  }
  for (const [name, body] of namedBlocks(config, 'module', fail)) source(`module ${quotePath(name)}`, body);
  namedBlocks(config, 'param', fail);
  namedBlocks(config, 'global', fail);
  for (const [name, body] of namedBlocks(config, 'mock', fail)) {
    for (const module of blockBodies(body.get('module'), `mock ${quotePath(name)} module`, fail)) {
      source(`mock ${quotePath(name)} module`, module);
    }
  }
  const imports = config.get('import');
  if (imports !== undefined) {
    if (!isObject(imports))
      return fail('import blocks need a type and a name (import "module" "name" { … })');
    for (const [type, named] of entries(imports)) {
      if (!SENTINEL_IMPORT_TYPES.has(type) || !isObject(named)) {
        fail(`import ${quotePath(type)} is not of type "plugin", "module" or "static" with a name`);
      }
      for (const [name, bodies] of entries(named as object)) {
        const what = `import ${quotePath(type)} ${quotePath(name)}`;
        for (const body of blockBodies(bodies, what, fail)) source(what, body);
      }
    }
  }
}

async function checkOpa(input: LayoutInput, parseHcl: ParseHcl) {
  const paths = configPaths('opa', input.root);
  const path = paths.find((p) => input.configs.has(p)) ?? paths[0]!;
  const config = await readConfig(input, path, parseHcl, paths);
  const fail = (message: string, code: ArchiveRejectionCode = 'STORAGE_ARCHIVE_CONFIG_INVALID') => {
    throw new LayoutError(code, `${path}: ${message}`);
  };
  for (const key of config.keys()) {
    if (key !== 'policy') fail(`unknown block or attribute ${quotePath(key)}`);
  }
  const policies = namedBlocks(config, 'policy', fail);
  if (policies.length === 0) fail('declares no policy');
  for (const [name, body] of policies) {
    const what = `policy ${quotePath(name)}`;
    const query = body.get('query');
    if (query === undefined) fail(`${what} has no query`);
    if (typeof query !== 'string' || !/^data\.[^\s]/.test(query) || query.includes('${')) {
      fail(
        `${what} query must be a literal string that starts with "data." (for example "data.terraform.policies.${name}.deny")`,
      );
    }
    checkLevel(body, OPA_LEVELS, what, fail);
    const description = body.get('description');
    if (description !== undefined && typeof description !== 'string')
      fail(`${what} description must be a string`);
  }
  const prefix = input.root === '' ? '' : `${input.root}/`;
  const hasRego = [...input.entries].some((e) => e.startsWith(prefix) && e.endsWith('.rego'));
  if (!hasRego) {
    throw new LayoutError(
      'STORAGE_ARCHIVE_SOURCE_MISSING',
      `the archive has no .rego files${input.root === '' ? '' : ` in ${quotePath(input.root)}`}`,
    );
  }
}

/** The parsed configuration file as a Map (user-chosen names never touch Object.prototype). */
async function readConfig(
  input: LayoutInput,
  path: string,
  parseHcl: ParseHcl,
  candidates: string[] = [path],
): Promise<Map<string, unknown>> {
  const text = input.configs.get(path);
  if (text === undefined) {
    const names = candidates.map((c) => posix.basename(c)).join(' or ');
    throw new LayoutError(
      'STORAGE_ARCHIVE_CONFIG_MISSING',
      `the archive has no ${names} ${input.root === '' ? 'at its root' : `in ${quotePath(input.root)}`}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = path.endsWith('.json')
      ? normaliseJsonSyntax(JSON.parse(text))
      : await parseHcl(posix.basename(path), text);
  } catch (err) {
    if (!(err instanceof HclSyntaxError || err instanceof SyntaxError)) throw err;
    throw new LayoutError(
      'STORAGE_ARCHIVE_CONFIG_INVALID',
      `${path} cannot be parsed: ${parserMessage(err)}`,
    );
  }
  if (!isObject(parsed)) throw new LayoutError('STORAGE_ARCHIVE_CONFIG_INVALID', `${path} must hold blocks`);
  return new Map(entries(parsed));
}

/** `block "name" { … }` as [name, body] pairs; a block written twice is refused. */
function namedBlocks(config: Map<string, unknown>, kind: string, fail: (m: string) => never) {
  const value = config.get(kind);
  if (value === undefined) return [];
  if (!isObject(value) || Array.isArray(value)) fail(`${kind} blocks need a name (${kind} "name" { … })`);
  const out: Array<[string, Map<string, unknown>]> = [];
  for (const [name, bodies] of entries(value as object)) {
    const list = blockBodies(bodies, `${kind} ${quotePath(name)}`, fail);
    if (list.length !== 1) fail(`${kind} ${quotePath(name)} is declared more than once`);
    out.push([name, list[0]!]);
  }
  return out;
}

function blockBodies(value: unknown, what: string, fail: (m: string) => never): Array<Map<string, unknown>> {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((body) => {
    if (!isObject(body) || Array.isArray(body)) fail(`${what} must be a block with a single name`);
    return new Map(entries(body as object));
  });
}

function checkLevel(
  body: Map<string, unknown>,
  levels: Set<string>,
  what: string,
  fail: (m: string) => never,
) {
  const level = body.get('enforcement_level');
  if (level !== undefined && (typeof level !== 'string' || !levels.has(level))) {
    fail(
      `${what} has enforcement_level ${quotePath(String(level))}; use ${[...levels].map((l) => `"${l}"`).join(', ')}`,
    );
  }
}

/** A `source` must be a literal relative path to a file of the archive, inside the layout's root. */
function checkSource(
  input: LayoutInput,
  configPath: string,
  what: string,
  value: unknown,
  fail: (m: string, code?: ArchiveRejectionCode) => never,
) {
  if (typeof value !== 'string' || value === '' || value.includes('${')) {
    return fail(`${what} source must be a literal string`);
  }
  const shown = `${what} source ${quotePath(value)}`;
  if (/^[A-Za-z][A-Za-z0-9+.-]*(::|:\/\/)/.test(value)) {
    return fail(`${shown} is remote; remote sources cannot be fetched, put the file in the archive`);
  }
  if (value.startsWith('/') || value.startsWith('\\') || /^[A-Za-z]:/.test(value)) {
    return fail(`${shown} must be a path relative to ${posix.basename(configPath)}`);
  }
  const resolved = posix.normalize(
    posix.join(input.root === '' ? '.' : input.root, value.replaceAll('\\', '/')),
  );
  const inside =
    input.root === ''
      ? !resolved.startsWith('../') && resolved !== '..'
      : resolved.startsWith(`${input.root}/`);
  if (!inside) {
    return fail(
      `${shown} is outside ${input.root === '' ? 'the archive' : quotePath(input.root)}`,
      'STORAGE_ARCHIVE_SOURCE_MISSING',
    );
  }
  if (!input.entries.has(resolved)) fail(`${shown} is not in the archive`, 'STORAGE_ARCHIVE_SOURCE_MISSING');
}

/** HCL's JSON syntax allows a single block body where native syntax gives a list. */
function normaliseJsonSyntax(value: unknown): unknown {
  if (!isObject(value) || Array.isArray(value)) return value;
  const policy = (value as Record<string, unknown>).policy;
  if (!isObject(policy) || Array.isArray(policy)) return value;
  const named = Object.create(null) as Record<string, unknown>;
  for (const [name, body] of entries(policy)) named[name] = Array.isArray(body) ? body : [body];
  return { ...(value as object), policy: named };
}

/** The parser's diagnostic, without its wrapper, short enough for an error message. */
function parserMessage(err: Error): string {
  const raw = err.message;
  const text = raw
    .replace(/^parse config: \[/, '')
    .replace(/\]$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;
const entries = (v: object): Array<[string, unknown]> => Object.entries(v);
