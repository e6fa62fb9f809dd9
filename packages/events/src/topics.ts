/**
 * Every event topic, the protobuf message carried on it (proto/), and the services that consume
 * it (the "consumes" column of the service table in the README). One topic per event type. Kafka topic names are these
 * strings; consumers subscribe by them. The in-process bus uses `consumedBy` to tell an event no
 * service consumes (safe to mark sent with nobody listening) from one whose consumer is missing
 * from the process (refused, so the outbox keeps it); embedded's tests keep the lists true.
 */
export const TOPICS = {
  organizationDeleted: {
    name: 'admin-orgs.organization-deleted',
    type: 'policyhub.adminorgs.v1.OrganizationDeleted',
    consumedBy: ['policy-sets', 'runs', 'storage'],
  },
  workspaceDeleted: {
    name: 'admin-orgs.workspace-deleted',
    type: 'policyhub.adminorgs.v1.WorkspaceDeleted',
    consumedBy: ['policy-sets', 'runs', 'storage'],
  },
  projectDeleted: {
    name: 'admin-orgs.project-deleted',
    type: 'policyhub.adminorgs.v1.ProjectDeleted',
    consumedBy: ['policy-sets'],
  },
  orgSharingChanged: {
    name: 'admin-orgs.org-sharing-changed',
    type: 'policyhub.adminorgs.v1.OrgSharingChanged',
    consumedBy: [],
  },
  uploadCompleted: {
    name: 'storage.upload-completed',
    type: 'policyhub.storage.v1.UploadCompleted',
    consumedBy: ['policy-sets', 'runs'],
  },
  policySetDeleted: {
    name: 'policy-sets.policy-set-deleted',
    type: 'policyhub.policysets.v1.PolicySetDeleted',
    consumedBy: ['storage'],
  },
  // Privileged acts of services other than admin-orgs, for the audit trail admin-orgs keeps
  // (docs/adr/0051-audit-trail.md). One topic per producing service, one message type.
  policySetsAuditRecorded: {
    name: 'policy-sets.audit-recorded',
    type: 'policyhub.common.v1.AuditRecorded',
    consumedBy: ['admin-orgs'],
  },
  runsAuditRecorded: {
    name: 'runs.audit-recorded',
    type: 'policyhub.common.v1.AuditRecorded',
    consumedBy: ['admin-orgs'],
  },
} as const satisfies Record<string, { name: string; type: string; consumedBy: readonly string[] }>;

export type TopicKey = keyof typeof TOPICS;
export type Topic = (typeof TOPICS)[TopicKey];

export function topicByName(name: string): Topic | undefined {
  return Object.values(TOPICS).find((t) => t.name === name);
}

/** True when `service` writes events of some topic (topic names start with the owning service). */
export const producesEvents = (service: string): boolean =>
  Object.values(TOPICS).some((t) => t.name.startsWith(`${service}.`));
