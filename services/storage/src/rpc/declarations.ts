import { type commonV1, declaredEnforcementLevel } from '@policyhub/contracts';
import type { ArchiveDeclaration } from '../domain/archive-layouts.js';

/**
 * The declaration as storage hands it out (common.v1.ArchiveDeclaration): in
 * storage.upload-completed, and in ReadArchiveDeclaration's answer.
 */
export const declarationMessage = (d: ArchiveDeclaration): commonV1.ArchiveDeclaration => ({
  root: d.root,
  configPath: d.configPath,
  policies: d.policies.map((p) => ({
    name: p.name,
    enforcementLevel: declaredEnforcementLevel.fromKnownWord(p.enforcementLevel),
    source: p.source || undefined,
    query: p.query || undefined,
    description: p.description || undefined,
  })),
  sentinelBlocksJson: d.sentinelBlocks ? JSON.stringify(d.sentinelBlocks) : undefined,
});
