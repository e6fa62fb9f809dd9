import {
  configurationVersionStatus,
  enforcementLevel,
  planStatus,
  policyCheckScope,
  policyCheckStatus,
  policySetVersionStatus,
  runEventAction,
  runStatus,
  teamVisibility,
} from '@policyhub/contracts';
import { PERMISSIONS } from '@policyhub/grpc-runtime';
import { type Static, type TProperties, type TSchema, Type, TypeGuard } from '@sinclair/typebox';
import type { WireNames } from '../vocabulary.js';

/**
 * The exact response shape of every resource type (ADR 0031), as served: attributes with their
 * types and nullability, relationships, links. Every object is closed (`additionalProperties:
 * false`), so the response-validation mode (`plugins/response-validation.ts`) fails on any member
 * a serializer adds without saying so here. The schemas depend on the served vocabulary profile
 * (policy kinds, the policy check's engine key, the organization attribute aliases): they describe
 * what `plugins/vocabulary.ts` sends, not what the serializers emit before it.
 *
 * Each is registered once per app as a shared schema under its `$id` (components.schemas in the
 * OpenAPI document); route documents refer to them by name.
 */

/** The names of the shared resource schemas (`$id`s). */
export type ResourceName =
  | 'AdminOrganization'
  | 'AuthenticationToken'
  | 'Comment'
  | 'ConfigurationVersion'
  | 'Organization'
  | 'Plan'
  | 'Policy'
  | 'PolicyCheck'
  | 'PolicySet'
  | 'PolicySetVersion'
  | 'Project'
  | 'Run'
  | 'RunEvent'
  | 'Team'
  | 'User'
  | 'Workspace';

/** JSON Schema's `if`/`then`/`else`: `then` when the value matches `condition`, else `otherwise`. */
export const ifThenElse = <T = unknown>(condition: object, then: TSchema, otherwise: TSchema) =>
  Type.Unsafe<T>({
    if: condition,
    then,
    else: otherwise,
  });

/** The JSON:API `type` of each shared resource schema. */
export const RESOURCE_TYPES: Record<ResourceName, string> = {
  AdminOrganization: 'organizations',
  AuthenticationToken: 'authentication-tokens',
  Comment: 'comments',
  ConfigurationVersion: 'configuration-versions',
  Organization: 'organizations',
  Plan: 'plans',
  Policy: 'policies',
  PolicyCheck: 'policy-checks',
  PolicySet: 'policy-sets',
  PolicySetVersion: 'policy-set-versions',
  Project: 'projects',
  Run: 'runs',
  RunEvent: 'run-events',
  Team: 'teams',
  User: 'users',
  Workspace: 'workspaces',
};

/** A closed object: every property required unless wrapped in Type.Optional. */
export const closed = <T extends TProperties>(properties: T, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/**
 * `schema` or null, as a JSON type list (`"type": ["string", "null"]`) rather than an `anyOf`: one
 * schema node, which fast-json-stringify writes without trying alternatives.
 */
export const nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type as string, 'null'] });

/** ISO-8601 UTC with a literal `Z` (DESIGN §4). */
export const Timestamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$',
  description: 'ISO-8601 UTC timestamp (`2026-01-01T00:00:00.000Z`).',
});

const Count = Type.Integer({ minimum: 0 });

/** One of these strings (an `enum`, not an `anyOf` of constants). */
const oneOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

/** `{"<status>-at": timestamp}` for every status the resource has entered. */
const statusTimestamps = (description: string) =>
  Type.Object(
    {},
    {
      patternProperties: { '^[a-z][a-z-]*-at$': Timestamp },
      additionalProperties: false,
      description,
    },
  );

const identifier = (type: string) => closed({ id: Type.String(), type: Type.Literal(type) });

/** `{"data": identifier | null}`. */
const toOne = (type: string) => closed({ data: nullable(identifier(type)) });
/** `{"data": identifier}` (always set). */
const toOneSet = (type: string) => closed({ data: identifier(type) });
/** `{"data": [identifiers]}`. */
const toMany = (type: string) => closed({ data: Type.Array(identifier(type)) });
/** `{"links": {"related": url}}` (no linkage). */
const relatedOnly = () => closed({ links: closed({ related: Type.String() }) });

const self = { self: Type.String() };

/** A resource object of `type` with exactly these members. */
function resource(
  $id: ResourceName,
  parts: { attributes: TProperties; relationships?: TProperties | TSchema; links: TProperties },
  description: string,
) {
  const relationships = parts.relationships;
  return closed(
    {
      id: Type.String(),
      type: Type.Literal(RESOURCE_TYPES[$id]),
      attributes: closed(parts.attributes),
      ...(relationships
        ? { relationships: TypeGuard.IsSchema(relationships) ? relationships : closed(relationships) }
        : {}),
      links: closed(parts.links),
    },
    { $id, description },
  );
}

/**
 * A policy set's relationships, in the serializer's order: a global set has no `workspaces` and
 * `projects` (it applies to every workspace of its organization). Two closed shapes chosen by
 * `if`/`then`/`else` rather than optional members, so a serializer that writes members in schema
 * order keeps the serializer's order, and picks the shape without trying both.
 */
const policySetRelationships = (() => {
  const before = { organization: toOne('organizations'), policies: toMany('policies') };
  const after = {
    'workspace-exclusions': toMany('workspaces'),
    'newest-version': toOne('policy-set-versions'),
    'current-version': toOne('policy-set-versions'),
  };
  return ifThenElse<Record<string, unknown>>(
    { type: 'object', required: ['workspaces'] },
    closed({ ...before, workspaces: toMany('workspaces'), projects: toMany('projects'), ...after }),
    closed({ ...before, ...after }, { description: 'A global set: no workspaces and projects.' }),
  );
})();

// Closed sets of words come from the contracts' enum tables (ADR 0035), so a new status appears
// in the schemas, the validation mode and the OpenAPI document with its enum value.
const POLICY_SET_VERSION_STATUS = policySetVersionStatus.words;
const ENFORCEMENT_LEVELS = enforcementLevel.words;
const RUN_STATUS = runStatus.words;
const POLICY_CHECK_STATUS = policyCheckStatus.words;

/** Every shared resource schema, in the names of the served profile. */
export function resourceSchemas(names: WireNames): TSchema[] {
  const kind = oneOf(Object.values(names.policyKinds), 'Policy kind.');
  const policySet = resource(
    'PolicySet',
    {
      attributes: {
        name: Type.String(),
        description: nullable(Type.String()),
        global: Type.Boolean(),
        kind,
        // Upstream's leniency (`agentLeniency`): null for a kind_a set without the agent.
        overridable: names.agentLeniency ? nullable(Type.Boolean()) : Type.Boolean(),
        'agent-enabled': Type.Boolean(),
        'policy-tool-version': Type.String(),
        'policies-path': nullable(Type.String()),
        'vcs-repo': nullable(
          closed({
            branch: nullable(Type.String()),
            identifier: Type.String(),
            'display-identifier': Type.String(),
            'oauth-token-id': nullable(Type.String()),
            'github-app-installation-id': nullable(Type.String()),
            'ingress-submodules': Type.Boolean(),
          }),
        ),
        versioned: Type.Boolean(),
        'policy-count': Count,
        'workspace-count': Count,
        'project-count': Count,
        'created-at': Timestamp,
        'updated-at': Timestamp,
      },
      relationships: policySetRelationships,
      links: self,
    },
    'A policy set. A global set has no `workspaces` and `projects` relationships.',
  );

  const policy = resource(
    'Policy',
    {
      attributes: {
        name: Type.String(),
        description: nullable(Type.String()),
        kind,
        query: nullable(Type.String()),
        'enforcement-level': oneOf(ENFORCEMENT_LEVELS),
        enforce: Type.Array(closed({ path: Type.String(), mode: oneOf(ENFORCEMENT_LEVELS) }), {
          description: 'Deprecated form of the enforcement level (one element).',
        }),
        'policy-set-count': Count,
        'created-at': Timestamp,
        'updated-at': Timestamp,
      },
      relationships: { organization: toOne('organizations'), 'policy-sets': toMany('policy-sets') },
      links: { ...self, upload: Type.String(), download: Type.String() },
    },
    'A policy.',
  );

  const uploadUrl = nullable(
    Type.String({ description: 'Absolute single-use upload URL while usable, else null.' }),
  );
  const policySetVersion = resource(
    'PolicySetVersion',
    {
      attributes: {
        source: Type.String(),
        status: oneOf(POLICY_SET_VERSION_STATUS),
        'status-timestamps': statusTimestamps('`pending-at`, `ready-at`, `errored-at`.'),
        error: nullable(Type.String()),
        'error-message': nullable(Type.String()),
        'ingress-attributes': Type.Null(),
        'created-at': Timestamp,
        'updated-at': Timestamp,
        created_at: Timestamp,
        upload: uploadUrl,
      },
      relationships: { 'policy-set': toOne('policy-sets') },
      links: { ...self, upload: uploadUrl },
    },
    'A policy set version (an uploaded archive of policies).',
  );

  const policyCheck = resource(
    'PolicyCheck',
    {
      attributes: {
        result: nullable(
          closed({
            result: Type.Boolean(),
            passed: Count,
            'total-failed': Count,
            'hard-failed': Count,
            'soft-failed': Count,
            'advisory-failed': Count,
            'duration-ms': Count,
            duration: Count,
            [names.policyCheckEngineKey]: Type.Object(
              {},
              { additionalProperties: true, description: "The engine's own output, opaque to clients." },
            ),
          }),
        ),
        scope: oneOf(policyCheckScope.words),
        status: oneOf(POLICY_CHECK_STATUS),
        'status-timestamps': statusTimestamps('`queued-at`, `passed-at`, …'),
        actions: closed({ 'is-overridable': Type.Boolean() }),
        permissions: closed({ 'can-override': Type.Boolean() }),
        'created-at': Timestamp,
      },
      relationships: { run: toOne('runs') },
      links: { ...self, output: Type.String() },
    },
    'A policy check of a run (result is null until evaluated).',
  );

  const run = resource(
    'Run',
    {
      attributes: {
        status: oneOf(RUN_STATUS),
        'status-timestamps': statusTimestamps('`pending-at`, `policy-checked-at`, …'),
        message: Type.String(),
        source: Type.Literal('tfe-api'),
        'plan-only': Type.Boolean(),
        'is-destroy': Type.Literal(false),
        'auto-apply': Type.Literal(false),
        'created-at': Timestamp,
        actions: closed({
          'is-cancelable': Type.Boolean(),
          'is-confirmable': Type.Literal(false),
          'is-discardable': Type.Literal(false),
          'is-force-cancelable': Type.Literal(false),
        }),
        permissions: closed({ 'can-comment': Type.Boolean() }),
      },
      relationships: {
        workspace: toOne('workspaces'),
        'configuration-version': toOne('configuration-versions'),
        plan: toOne('plans'),
        'policy-checks': toMany('policy-checks'),
        comments: toMany('comments'),
        'run-events': toMany('run-events'),
      },
      links: self,
    },
    'A run.',
  );

  const plan = resource(
    'Plan',
    {
      attributes: {
        status: oneOf(planStatus.words),
        'status-timestamps': statusTimestamps('`pending-at`, `finished-at`, …'),
        'has-changes': Type.Boolean(),
        'resource-additions': Count,
        'resource-changes': Count,
        'resource-destructions': Count,
        'resource-imports': Count,
        'log-read-url': Type.Null(),
      },
      relationships: { run: toOne('runs') },
      links: { ...self, 'json-output': Type.String() },
    },
    "A run's plan.",
  );

  const configurationVersion = resource(
    'ConfigurationVersion',
    {
      attributes: {
        'auto-queue-runs': Type.Boolean(),
        error: nullable(Type.String()),
        'error-message': nullable(Type.String()),
        source: Type.String(),
        speculative: Type.Boolean(),
        provisional: Type.Boolean(),
        status: oneOf(configurationVersionStatus.words),
        'status-timestamps': statusTimestamps('`pending-at`, `uploaded-at`, `finished-at`, …'),
        'upload-url': uploadUrl,
        'created-at': Timestamp,
      },
      relationships: {
        'ingress-attributes': closed({ data: Type.Null(), links: closed({ related: Type.String() }) }),
      },
      links: { ...self, download: Type.String() },
    },
    'A configuration version of a workspace.',
  );

  const comment = resource(
    'Comment',
    {
      attributes: { body: Type.String() },
      relationships: {
        'run-event': closed({ data: identifier('run-events'), links: closed({ related: Type.String() }) }),
      },
      links: self,
    },
    'A comment on a run.',
  );

  const runEvent = resource(
    'RunEvent',
    {
      attributes: {
        action: oneOf(runEventAction.words),
        description: nullable(Type.String()),
        'created-at': Timestamp,
      },
      relationships: {
        run: toOne('runs'),
        actor: toOne('users'),
        comment: toOne('comments'),
        'policy-check': toOne('policy-checks'),
      },
      links: self,
    },
    'Something that happened to a run.',
  );

  const organization = resource(
    'Organization',
    {
      attributes: {
        name: Type.String(),
        'external-id': Type.String(),
        email: Type.String(),
        'created-at': Timestamp,
        permissions: closed({
          'can-update': Type.Boolean(),
          'can-destroy': Type.Boolean(),
          'can-manage-policies': Type.Boolean(),
          'can-manage-policy-overrides': Type.Boolean(),
          'can-create-workspace': Type.Boolean(),
          'can-create-project': Type.Boolean(),
          'can-create-team': Type.Boolean(),
        }),
      },
      links: self,
    },
    "An organization (a member's view).",
  );

  const timeout = nullable(Type.String({ description: 'A duration such as `2h`; null: the default.' }));
  const adminOrganization = resource(
    'AdminOrganization',
    {
      attributes: {
        name: Type.String(),
        'external-id': Type.String(),
        'notification-email': Type.String(),
        'created-at': Timestamp,
        'access-beta-tools': Type.Boolean(),
        'is-disabled': Type.Boolean(),
        'sso-enabled': Type.Boolean(),
        'global-module-sharing': Type.Boolean(),
        'global-provider-sharing': Type.Boolean(),
        [names.workerSudoEnabled]: Type.Boolean(),
        'workspace-limit': nullable(Type.Integer()),
        'apply-timeout': timeout,
        'plan-timeout': timeout,
        [names.applyTimeoutAlias]: timeout,
        [names.planTimeoutAlias]: timeout,
      },
      relationships: {
        owners: toMany('users'),
        'module-consumers': relatedOnly(),
        'provider-consumers': relatedOnly(),
      },
      links: self,
    },
    "An organization (the site admin's view).",
  );

  const project = resource(
    'Project',
    {
      attributes: {
        name: Type.String(),
        description: nullable(Type.String()),
        'is-default': Type.Boolean(),
        'created-at': Timestamp,
        'updated-at': Timestamp,
      },
      relationships: { organization: toOne('organizations') },
      links: self,
    },
    'A project.',
  );

  const workspace = resource(
    'Workspace',
    {
      attributes: {
        name: Type.String(),
        description: nullable(Type.String()),
        'created-at': Timestamp,
        'updated-at': Timestamp,
      },
      relationships: { organization: toOne('organizations'), project: toOne('projects') },
      links: self,
    },
    'A workspace.',
  );

  const team = resource(
    'Team',
    {
      attributes: {
        name: Type.String(),
        'organization-access': closed(Object.fromEntries(PERMISSIONS.map((p) => [p, Type.Boolean()]))),
        'users-count': Count,
        visibility: oneOf(teamVisibility.words),
        'created-at': Timestamp,
      },
      relationships: { organization: toOne('organizations'), users: toMany('users') },
      links: self,
    },
    'A team.',
  );

  const user = resource(
    'User',
    {
      attributes: {
        username: Type.String(),
        email: Type.String(),
        'is-site-admin': Type.Boolean(),
        'created-at': Timestamp,
      },
      links: self,
    },
    'A user.',
  );

  const authenticationToken = resource(
    'AuthenticationToken',
    {
      attributes: {
        description: nullable(Type.String()),
        token: nullable(Type.String({ description: 'The secret: only in the creation response.' })),
        'created-at': Timestamp,
        'last-used-at': nullable(Timestamp),
        'expired-at': Type.Null(),
      },
      relationships: { 'created-by': toOneSet('users') },
      links: self,
    },
    "A user's API token.",
  );

  return [
    adminOrganization,
    authenticationToken,
    comment,
    configurationVersion,
    organization,
    plan,
    policy,
    policyCheck,
    policySet,
    policySetVersion,
    project,
    run,
    runEvent,
    team,
    user,
    workspace,
  ];
}
