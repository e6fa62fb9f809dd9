/** Rego as OPA 0.x reads it (`deny[msg] { … }`) or as OPA 1.x does (`deny contains msg if { … }`). */
export type RegoSyntax = 'v0' | 'v1';

/**
 * The syntax a set's Rego is read in, from its `policy-tool-version`, the way upstream picks: the
 * OPA version a set selects decides, and OPA 1.0 made v1 the default. One OPA (1.x) serves every
 * set: v0 is read with `--v0-compatible`, which makes OPA 1.x behave as 0.x did.
 *
 * - a version below 1.0 (`0.61.0`): v0 only;
 * - a version from 1.0 (`1.4.2`): v1 only;
 * - `latest`, unset or not a version: v1, and v0 when the code parses only as v0 — upstream's
 *   `latest` meant OPA 0.x until 1.0 was released, and sets written then must keep working.
 *
 * A v1 module that imports `rego.v1` also reads as v0, so one set can mix both only that way.
 */
export function regoSyntaxFor(toolVersion: string | undefined): { first: RegoSyntax; orElse?: RegoSyntax } {
  const major = /^v?(\d+)(?:\.\d+){0,2}(?:[-+].*)?$/.exec(toolVersion?.trim() ?? '')?.[1];
  if (major === undefined) return { first: 'v1', orElse: 'v0' };
  return { first: Number(major) >= 1 ? 'v1' : 'v0' };
}
