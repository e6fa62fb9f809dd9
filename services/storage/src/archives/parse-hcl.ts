import { createRequire } from 'node:module';
import { HclSyntaxError, type ParseHcl } from '../domain/archive-layouts.js';

/** How long the parser may take to load and answer before the upload fails as a server error. */
const PARSER_TIMEOUT_MS = 15_000;

type Hcl2Json = { parse: (filename: string, contents: string) => Promise<unknown> };
let parser: Promise<Hcl2Json> | undefined;

// Loaded through require, untyped on purpose: the package's typings reference the DOM lib, which
// would leak browser globals (fetch's BodyInit, …) into every program that type-checks storage.
const loadParser = async (): Promise<Hcl2Json> =>
  createRequire(import.meta.url)('@cdktn/hcl2json') as Hcl2Json;

/**
 * HCL native syntax → the JSON shape of hcl2json, with HashiCorp's own HCL parser compiled to
 * WebAssembly (@cdktn/hcl2json; docs/adr/0012-archive-layouts-and-hcl-parser.md). Loaded on first
 * use: the WebAssembly runtime costs memory only in processes that check layouts.
 */
export const parseHcl: ParseHcl = async (filename, text) => {
  parser ??= loadParser();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ParserUnavailableError()), PARSER_TIMEOUT_MS);
  });
  try {
    const { parse } = await Promise.race([parser, timeout]);
    const parsed = parse(filename, text).catch((err: unknown) => {
      // hcl2json rejects invalid HCL with the parser's diagnostics as the message.
      throw new HclSyntaxError(err instanceof Error ? err.message : String(err));
    });
    return await Promise.race([parsed, timeout]);
  } finally {
    clearTimeout(timer);
  }
};

/** The parser did not answer: a fault of this service, not of the archive. */
export class ParserUnavailableError extends Error {
  constructor() {
    super('the HCL parser did not answer');
    this.name = 'ParserUnavailableError';
  }
}
