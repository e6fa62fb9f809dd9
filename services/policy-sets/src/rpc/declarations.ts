import { type commonV1, declaredEnforcementLevel } from '@policyhub/contracts';
import { optional } from './mappers.js';
import type { DeclaredPolicy, VersionDeclaration } from '../domain/versions.js';

/** A policy block as recorded at upload (common.v1.DeclaredPolicy). */
export const declaredPolicyMessage = (p: DeclaredPolicy): commonV1.DeclaredPolicy => ({
  name: p.name,
  enforcementLevel: declaredEnforcementLevel.fromKnownWord(p.enforcementLevel),
  source: optional(p.source || null),
  query: optional(p.query || null),
  description: optional(p.description || null),
});

/** A version's declaration as the snapshot carries it (common.v1.ArchiveDeclaration). */
export const declarationMessage = (d: VersionDeclaration): commonV1.ArchiveDeclaration => ({
  root: d.root,
  configPath: d.configPath,
  policies: d.policies.map(declaredPolicyMessage),
  sentinelBlocksJson: optional(d.sentinelBlocksJson || null),
});
