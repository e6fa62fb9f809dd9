import { Type } from '@sinclair/typebox';
import {
  Count,
  closed,
  defineResource,
  field,
  hasMany,
  hasOne,
  nullable,
  self,
  Timestamp,
  write,
} from '../../schemas/resources.js';
import type { WireNames } from '../../vocabulary.js';
import { policyKindField } from './words.js';

/** `vcs-repo` in a body: documented here, checked by the reader (`body.ts`) with its own wording. */
const VCS_REPO_BODY = {
  identifier: Type.String({ description: 'owner/repository' }),
  branch: Type.String(),
  'oauth-token-id': Type.String(),
  'github-app-installation-id': Type.String(),
  'ingress-submodules': Type.Boolean(),
};

type Attributes = Readonly<Record<string, unknown>>;

// Upstream's leniency (`agentLeniency`, ADR 0020): a kind_a set without the agent answers
// `overridable: null` and `policy-tool-version: ""`, a kind_b set `agent-enabled: true`.
const lenientKindA = (names: WireNames, a: Attributes) =>
  names.agentLeniency && a.kind === 'kind_a' && a['agent-enabled'] === false;
const lenientKindB = (names: WireNames, a: Attributes) => names.agentLeniency && a.kind === 'kind_b';

/** The wire shape of `policy-sets`: response, create and update bodies, vocabulary. */
export const POLICY_SET = defineResource({
  $id: 'PolicySet',
  type: 'policy-sets',
  description: 'A policy set. A global set has no `workspaces` and `projects` relationships.',
  attributes: {
    name: field(Type.String(), { write: write.string({ required: true, present: true, maxLength: 200 }) }),
    description: field(nullable(Type.String()), { write: write.string({ maxLength: 10_000 }) }),
    global: field(Type.Boolean(), { write: write.boolean() }),
    kind: policyKindField,
    overridable: field(Type.Boolean(), {
      write: write.boolean(),
      wording: {
        schema: (names) => (names.agentLeniency ? nullable(Type.Boolean()) : Type.Boolean()),
        value: (v, names, a) => (lenientKindA(names, a) ? null : v),
      },
    }),
    'agent-enabled': field(Type.Boolean(), {
      write: write.boolean(),
      wording: { value: (v, names, a) => (lenientKindB(names, a) ? true : v) },
    }),
    'policy-tool-version': field(Type.String(), {
      write: write.string({ maxLength: 200 }),
      wording: { value: (v, names, a) => (lenientKindA(names, a) ? '' : v) },
    }),
    'policies-path': field(nullable(Type.String()), { write: write.string({ maxLength: 2_000 }) }),
    'vcs-repo': field(
      nullable(
        closed({
          branch: nullable(Type.String()),
          identifier: Type.String(),
          'display-identifier': Type.String(),
          'oauth-token-id': nullable(Type.String()),
          'github-app-installation-id': nullable(Type.String()),
          'ingress-submodules': Type.Boolean(),
        }),
      ),
      { write: write.object('The VCS repository; null clears it.', VCS_REPO_BODY) },
    ),
    versioned: Type.Boolean(),
    'policy-count': Count,
    'workspace-count': Count,
    'project-count': Count,
    'created-at': Timestamp,
    'updated-at': Timestamp,
  },
  relationships: {
    organization: hasOne('organizations'),
    policies: hasMany('policies', { writable: true }),
    workspaces: hasMany('workspaces', { writable: true }),
    projects: hasMany('projects', { writable: true }),
    'workspace-exclusions': hasMany('workspaces', { writable: true }),
    // Changed through its relationship endpoints only.
    'project-exclusions': hasMany('projects'),
    'newest-version': hasOne('policy-set-versions'),
    'current-version': hasOne('policy-set-versions'),
  },
  // A global set applies to every workspace of its organization.
  omittable: {
    members: ['workspaces', 'projects'],
    description: 'A global set: no workspaces and projects.',
  },
  links: self,
});
