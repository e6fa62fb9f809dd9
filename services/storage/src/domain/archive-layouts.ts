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

/** A `policy` block of the configuration file, as the archive's version carries it from upload on. */
export interface DeclaredPolicy {
  name: string;
  /** The framework's word; a block without `enforcement_level` is advisory (both frameworks' default). */
  enforcementLevel: string;
  /** Sentinel: `source` as written (the layout requires one). '' for OPA. */
  source: string;
  /** OPA: the query naming the rule that decides, trimmed. '' for Sentinel. */
  query: string;
  /** OPA: the description ('' when none). */
  description: string;
}

/**
 * What the archive's configuration file declares: read once, here, while the upload is checked,
 * and carried with the version (storage.upload-completed → policy-sets → the applicable-set
 * snapshot → runs and the evaluator), which never parse the file again.
 */
export interface ArchiveDeclaration {
  /** The layout root ('' = the archive's root). */
  root: string;
  /** The configuration file read, as an archive path. */
  configPath: string;
  policies: DeclaredPolicy[];
  /**
   * Sentinel: the file's blocks (test blocks left out) in hcl2json's shape, which the engine's
   * configuration is built from: modules, imports, params, mocks, and each policy block's other
   * attributes (its `params`). Which policies run, their sources and levels are `policies`.
   * Undefined for OPA.
   */
  sentinelBlocks: Record<string, unknown> | undefined;
}

export type LayoutVerdict =
  | { ok: true; declaration: ArchiveDeclaration | undefined }
  | { ok: false; rejection: ArchiveRejection };

/**
 * Checks the archive against its required layout and reads what its configuration file declares:
 * the one parser of policy set configuration files. No layout required: nothing is read.
 */
export async function readLayout(input: LayoutInput, parseHcl: ParseHcl): Promise<LayoutVerdict> {
  if (input.layout === '') return { ok: true, declaration: undefined };
  try {
    const declaration =
      input.layout === 'sentinel' ? await checkSentinel(input, parseHcl) : await checkOpa(input, parseHcl);
    return { ok: true, declaration };
  } catch (err) {
    if (err instanceof LayoutError) return { ok: false, rejection: rejection(err.code, err.message) };
    throw err;
  }
}

/** Checks the archive against its required layout; undefined when it conforms (or none is required). */
export async function checkLayout(
  input: LayoutInput,
  parseHcl: ParseHcl,
): Promise<ArchiveRejection | undefined> {
  const verdict = await readLayout(input, parseHcl);
  return verdict.ok ? undefined : verdict.rejection;
}

async function checkSentinel(input: LayoutInput, parseHcl: ParseHcl): Promise<ArchiveDeclaration> {
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
  const declared: DeclaredPolicy[] = [];
  for (const [name, body] of policies) {
    const what = `policy ${quotePath(name)}`;
    source(what, body);
    const enforcementLevel = checkLevel(body, SENTINEL_LEVELS, what, fail);
    const params = body.get('params');
    if (params !== undefined && !isObject(params)) fail(`${what} has params that are not an object`);
    declared.push({
      name,
      enforcementLevel,
      source: body.get('source') as string,
      query: '',
      description: '',
    });
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
  const sentinelBlocks: Record<string, unknown> = Object.create(null);
  for (const [key, value] of config) if (key !== 'test') sentinelBlocks[key] = value;
  return { root: input.root, configPath: path, policies: declared, sentinelBlocks };
}

async function checkOpa(input: LayoutInput, parseHcl: ParseHcl): Promise<ArchiveDeclaration> {
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
  const declared: DeclaredPolicy[] = [];
  for (const [name, body] of policies) {
    const what = `policy ${quotePath(name)}`;
    const query = body.get('query');
    if (query === undefined) fail(`${what} has no query`);
    if (typeof query !== 'string' || !/^data\.[^\s]/.test(query) || query.includes('${')) {
      fail(
        `${what} query must be a literal string that starts with "data." (for example "data.terraform.policies.${name}.deny")`,
      );
    }
    const enforcementLevel = checkLevel(body, OPA_LEVELS, what, fail);
    const description = body.get('description');
    if (description !== undefined && typeof description !== 'string')
      fail(`${what} description must be a string`);
    declared.push({
      name,
      enforcementLevel,
      source: '',
      query: (query as string).trim(),
      description: (description as string | undefined) ?? '',
    });
  }
  const prefix = input.root === '' ? '' : `${input.root}/`;
  const hasRego = [...input.entries].some((e) => e.startsWith(prefix) && e.endsWith('.rego'));
  if (!hasRego) {
    throw new LayoutError(
      'STORAGE_ARCHIVE_SOURCE_MISSING',
      `the archive has no .rego files${input.root === '' ? '' : ` in ${quotePath(input.root)}`}`,
    );
  }
  return { root: input.root, configPath: path, policies: declared, sentinelBlocks: undefined };
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

/** The block's enforcement level: advisory when unset (both frameworks' default). */
function checkLevel(
  body: Map<string, unknown>,
  levels: Set<string>,
  what: string,
  fail: (m: string) => never,
): string {
  const level = body.get('enforcement_level');
  if (level !== undefined && (typeof level !== 'string' || !levels.has(level))) {
    fail(
      `${what} has enforcement_level ${quotePath(String(level))}; use ${[...levels].map((l) => `"${l}"`).join(', ')}`,
    );
  }
  return (level as string | undefined) ?? 'advisory';
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

/**
 * HCL's JSON syntax allows a single block body where native syntax gives a list, and a list of
 * labelled objects (`"policy": [{"a": {…}}, {"b": {…}}]`) where it gives one object; both become
 * native syntax's shape (a name given twice stays two bodies, which is refused as a repeat).
 */
function normaliseJsonSyntax(value: unknown): unknown {
  if (!isObject(value) || Array.isArray(value)) return value;
  const policy = (value as Record<string, unknown>).policy;
  if (!isObject(policy)) return value;
  const labelled = Array.isArray(policy) ? policy : [policy];
  if (!labelled.every((l) => isObject(l) && !Array.isArray(l))) return value;
  const named = Object.create(null) as Record<string, unknown[]>;
  for (const blocks of labelled) {
    for (const [name, body] of entries(blocks as object)) {
      named[name] = [...(named[name] ?? []), ...(Array.isArray(body) ? body : [body])];
    }
  }
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
