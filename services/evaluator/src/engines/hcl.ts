import { createRequire } from 'node:module';

type Hcl2Json = { parse: (filename: string, contents: string) => Promise<unknown> };
// Loaded through require, untyped on purpose (as in storage and runs): the package's typings
// reference the DOM lib, which would leak browser globals into every program that type-checks this.
let hcl2json: Hcl2Json | undefined;

/**
 * HCL native syntax as the JSON shape of hcl2json (blocks as `{type: {label: [body]}}`), with
 * HashiCorp's own parser compiled to WebAssembly (@cdktn/hcl2json, docs/adr/0012). Throws an
 * Error naming the file when the text is not HCL.
 */
export async function parseHcl(text: string, filename: string): Promise<unknown> {
  hcl2json ??= createRequire(import.meta.url)('@cdktn/hcl2json') as Hcl2Json;
  try {
    return await hcl2json.parse(filename, text);
  } catch (err) {
    const message = (err as Error).message.replace(/^parse config: /, '');
    throw new Error(`${filename} is not valid HCL: ${message}`);
  }
}
