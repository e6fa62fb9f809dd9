import type { Db } from '@policyhub/db';
import type { OutboxRelay } from '@policyhub/events';
import type { UploadTokens } from '@policyhub/grpc-runtime';
import type { ParameterSealer } from './crypto/parameter-keys.js';
import type { TenancyDirectory, UploadSessions } from './domain/ports.js';

/** What policy-sets' use cases get; service.ts builds it once. */
export interface Deps {
  db: Db;
  /** Flushed after a transaction that wrote events, so they leave promptly. */
  relay: OutboxRelay;
  /** admin-orgs: organizations (entitlements), workspaces and projects. */
  tenancy: TenancyDirectory;
  /** storage: upload sessions of version archives. */
  uploadSessions: UploadSessions;
  /** Mints a pending version's upload URL token from its session id on every read (ADR 0059). */
  uploadTokens: UploadTokens;
  /** How long a version's upload URL works (VERSION_UPLOAD_URL_TTL_SECONDS; the spec's hour by default). */
  uploadUrlTtlMs: number;
  /** Seals sensitive set parameters; undefined when no key is configured (they are refused then). */
  parameterSealer: ParameterSealer | undefined;
}
