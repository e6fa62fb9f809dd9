/**
 * Every event topic and the protobuf message carried on it (proto/). One topic per event type.
 * Kafka topic names are these strings; consumers subscribe by them.
 */
export const TOPICS = {
  organizationDeleted: {
    name: 'admin-orgs.organization-deleted',
    type: 'policyhub.adminorgs.v1.OrganizationDeleted',
  },
  workspaceDeleted: { name: 'admin-orgs.workspace-deleted', type: 'policyhub.adminorgs.v1.WorkspaceDeleted' },
  projectDeleted: { name: 'admin-orgs.project-deleted', type: 'policyhub.adminorgs.v1.ProjectDeleted' },
  orgSharingChanged: {
    name: 'admin-orgs.org-sharing-changed',
    type: 'policyhub.adminorgs.v1.OrgSharingChanged',
  },
  uploadCompleted: { name: 'storage.upload-completed', type: 'policyhub.storage.v1.UploadCompleted' },
  policySetDeleted: {
    name: 'policy-sets.policy-set-deleted',
    type: 'policyhub.policysets.v1.PolicySetDeleted',
  },
} as const;

export type TopicKey = keyof typeof TOPICS;
export type Topic = (typeof TOPICS)[TopicKey];

export const DEAD_LETTER_SUFFIX = '.dead-letter';

export function topicByName(name: string): Topic | undefined {
  return Object.values(TOPICS).find((t) => t.name === name);
}
