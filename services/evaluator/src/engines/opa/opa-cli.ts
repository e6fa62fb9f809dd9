import { findExecutable, printedBy } from '../executables.js';
import type { RegoSyntax } from './rego-syntax.js';

/** Where the official OPA binaries are published (docs/policy-evaluation.md explains the install). */
export const OPA_DOWNLOADS = 'https://github.com/open-policy-agent/opa/releases';

/**
 * Built-in functions no policy gets: the ones that reach the network (`http.send`,
 * `net.lookup_ip_addr`) and `opa.runtime`, which would hand a policy the evaluator's environment.
 * The capabilities file OPA is run with leaves them out (a policy calling one fails to compile)
 * and allows no host (`allow_net: []`).
 */
export const DENIED_BUILTINS: ReadonlySet<string> = new Set([
  'http.send',
  'net.lookup_ip_addr',
  'opa.runtime',
]);

/** An installed OPA 1.x: its path, version, and the capabilities it is run with, per syntax. */
export interface OpaInstallation {
  path: string;
  version: string;
  /** The JSON of a capabilities file for each syntax (OPA's own, minus DENIED_BUILTINS). */
  capabilities: Record<RegoSyntax, string>;
}

/**
 * The OPA CLI at OPA_BIN, else `opa` on PATH: it must be 1.0 or later and print its capabilities
 * (`opa capabilities --current`, with `--v0-compatible` for v0), which are narrowed once, here.
 */
export async function findOpa(
  env: Record<string, string | undefined>,
): Promise<OpaInstallation | { problem: string }> {
  const found = findExecutable(env, 'OPA_BIN', 'opa');
  if ('problem' in found) return found;
  try {
    const printed = await printedBy(found.path, ['version']);
    const version = /^Version:\s*v?(\S+)/m.exec(printed)?.[1];
    if (!version) return { problem: `${found.path} version printed no "Version:" line` };
    if (Number(version.split('.')[0]) < 1) {
      return {
        problem: `${found.path} is OPA ${version}; the evaluator needs OPA 1.0 or later (it reads v0 policies with --v0-compatible)`,
      };
    }
    const maxBytes = 8 * 1024 * 1024;
    const [v1, v0] = await Promise.all([
      printedBy(found.path, ['capabilities', '--current'], maxBytes),
      printedBy(found.path, ['capabilities', '--current', '--v0-compatible'], maxBytes),
    ]);
    return {
      path: found.path,
      version,
      capabilities: { v1: withoutDeniedBuiltins(v1), v0: withoutDeniedBuiltins(v0) },
    };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

/** OPA's capabilities document without DENIED_BUILTINS, and with no host allowed. */
export function withoutDeniedBuiltins(capabilities: string): string {
  const document = JSON.parse(capabilities) as { builtins?: unknown };
  if (typeof document !== 'object' || document === null || !Array.isArray(document.builtins)) {
    throw new Error('opa capabilities --current printed no "builtins" list');
  }
  const builtins = document.builtins.filter((b: { name?: unknown }) => !DENIED_BUILTINS.has(String(b?.name)));
  return JSON.stringify({ ...document, builtins, allow_net: [] });
}
