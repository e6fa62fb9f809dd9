import { randomUUID } from 'node:crypto';
import { auditActorType, auditOutcome, type commonV1 } from '@policyhub/contracts';
import type { Queryable } from '@policyhub/db';
import { enqueueEvent } from './outbox.js';
import type { Topic } from './topics.js';

/**
 * The audit trail (docs/adr/0051-audit-trail.md): every privileged act leaves one record, written
 * in the transaction of the act. admin-orgs keeps the trail; other services write their acts to
 * their outbox with `enqueueAudit`, and admin-orgs consumes them into the trail.
 */

/** Who acted: a user (id and name), or `null` for the system itself. */
export interface AuditActor {
  id: string;
  name: string;
}

/** The actor of a request's principal; `null` (the system) for internal calls without one. */
export const auditActorOf = (
  principal: { userId: string; username: string } | undefined,
): AuditActor | null => (principal ? { id: principal.userId, name: principal.username } : null);

/** A fact about an act (`meta`): names, flags, counts. Never a secret. */
export type AuditMetaValue = string | number | boolean | null | readonly string[];

/** One privileged act, as a service describes it. */
export interface AuditAct {
  /** The organization acted in (name and immutable id); `null` for acts outside any. */
  organization: { name: string; id: string | null } | null;
  actor: AuditActor | null;
  /** Upstream's words: `policy_set`, `authentication_token`, …; actions `create`, `update`, `destroy`, … */
  resource: { type: string; id: string; action: string };
  meta?: Record<string, AuditMetaValue | undefined>;
}

/**
 * Keys of `meta` that are never kept, whatever a caller passes: a token, a parameter's value, a
 * capability URL would outlive its secrecy in the trail (kept for months, read by owners).
 */
const SECRET_KEY = /token|secret|password|passphrase|url|value|credential|private/i;

/** `meta` as stored: a JSON object without secret-looking keys or undefined members. */
export function auditMetaJson(meta: AuditAct['meta']): string {
  const kept: Record<string, AuditMetaValue> = {};
  for (const [key, value] of Object.entries(meta ?? {})) {
    if (value !== undefined && !SECRET_KEY.test(key)) kept[key] = value;
  }
  return JSON.stringify(kept);
}

/** The names (snake_case) of the members of a change that are set: what an update touched, without values. */
export const changedAttributes = (change: object): string[] =>
  Object.entries(change)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

/** The stored words of an act's record (what the trail's row holds). */
export function auditFields(act: AuditAct) {
  return {
    organizationId: act.organization?.id ?? null,
    organization: act.organization?.name ?? null,
    actorType: act.actor ? ('Client' as const) : ('System' as const),
    actorId: act.actor?.id ?? null,
    actorDescription: act.actor?.name ?? 'system',
    resourceType: act.resource.type,
    resourceId: act.resource.id,
    action: act.resource.action,
    outcome: 'succeeded' as const,
    metaJson: auditMetaJson(act.meta),
  };
}

/** The record of an act, as the AuditRecorded event carries it (no id or time: the event's). */
export function auditRecordOf(act: AuditAct): commonV1.AuditRecord {
  const f = auditFields(act);
  return {
    ...(f.organization !== null ? { organization: f.organization } : {}),
    ...(f.organizationId !== null ? { organizationId: f.organizationId } : {}),
    actorType: auditActorType.fromKnownWord(f.actorType),
    ...(f.actorId !== null ? { actorId: f.actorId } : {}),
    actorDescription: f.actorDescription,
    resourceType: f.resourceType,
    resourceId: f.resourceId,
    action: f.action,
    outcome: auditOutcome.fromKnownWord(f.outcome),
    metaJson: f.metaJson,
  };
}

/**
 * Records a privileged act from a service other than admin-orgs: an AuditRecorded event on the
 * service's audit topic, in `tx` (the act's transaction), so the act and its record commit or
 * roll back together. The event id becomes the record's id.
 */
export async function enqueueAudit(tx: Queryable, topic: Topic, act: AuditAct): Promise<void> {
  await enqueueEvent(tx, topic, act.resource.id, { record: auditRecordOf(act) });
}

/** A fresh record id, for records admin-orgs writes directly. */
export const newAuditId = (): string => randomUUID();
