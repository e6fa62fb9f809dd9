import type { TSchema } from '@sinclair/typebox';
import type { Api, RouteContext } from '../route-context.js';
import type { ResourceDefinition } from '../schemas/resources.js';
import type { WireNames } from '../vocabulary.js';
import { registerAdminOrganizationRoutes } from './admin-organizations/routes.js';
import { ADMIN_ORGANIZATION } from './admin-organizations/schema.js';
import { registerAuditTrailRoutes } from './audit-trail/routes.js';
import { AUTHENTICATION_TOKEN } from './authentication-tokens/schema.js';
import { registerCommentRoutes } from './comments/routes.js';
import { COMMENT } from './comments/schema.js';
import { registerConfigurationVersionRoutes } from './configuration-versions/routes.js';
import { CONFIGURATION_VERSION } from './configuration-versions/schema.js';
import { registerMetaRoutes } from './meta/routes.js';
import { registerOrganizationRoutes } from './organizations/routes.js';
import { ORGANIZATION } from './organizations/schema.js';
import { registerPlanRoutes } from './plans/routes.js';
import { PLAN } from './plans/schema.js';
import { registerPolicyRoutes } from './policies/routes.js';
import { POLICY } from './policies/schema.js';
import { registerPolicySetRoutes } from './policy-sets/routes.js';
import { POLICY_SET } from './policy-sets/schema.js';
import { registerPolicySetParameterRoutes } from './policy-set-parameters/routes.js';
import { POLICY_SET_PARAMETER } from './policy-set-parameters/schema.js';
import { registerPolicySetVersionRoutes } from './policy-set-versions/routes.js';
import { POLICY_SET_VERSION } from './policy-set-versions/schema.js';
import { registerPolicyCheckRoutes } from './policy-checks/routes.js';
import { registerPolicyEvaluationRoutes } from './policy-evaluations/routes.js';
import { POLICY_EVALUATION } from './policy-evaluations/schema.js';
import { registerPolicySetOutcomeRoutes } from './policy-set-outcomes/routes.js';
import { POLICY_SET_OUTCOME } from './policy-set-outcomes/schema.js';
import { registerTaskStageRoutes } from './task-stages/routes.js';
import { TASK_STAGE } from './task-stages/schema.js';
import { POLICY_CHECK } from './policy-checks/schema.js';
import { registerProjectRoutes } from './projects/routes.js';
import { PROJECT } from './projects/schema.js';
import { registerRunEventRoutes } from './run-events/routes.js';
import { RUN_EVENT } from './run-events/schema.js';
import { registerRunRoutes } from './runs/routes.js';
import { RUN } from './runs/schema.js';
import { registerTeamRoutes } from './teams/routes.js';
import { TEAM } from './teams/schema.js';
import { registerUploadRoutes } from './uploads/routes.js';
import { registerUserRoutes } from './users/routes.js';
import { USER } from './users/schema.js';
import { registerWorkspaceRoutes } from './workspaces/routes.js';
import { WORKSPACE } from './workspaces/schema.js';

/** Every resource's routes, mounted under /api/v2. One line per resource type. */
export function registerResources(app: Api, ctx: RouteContext): void {
  registerMetaRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerOrganizationRoutes(app, ctx);
  registerTeamRoutes(app, ctx);
  registerProjectRoutes(app, ctx);
  registerWorkspaceRoutes(app, ctx);
  registerAdminOrganizationRoutes(app, ctx);
  registerAuditTrailRoutes(app, ctx);
  registerPolicyRoutes(app, ctx);
  registerPolicySetRoutes(app, ctx);
  registerPolicySetVersionRoutes(app, ctx);
  registerPolicySetParameterRoutes(app, ctx);
  registerUploadRoutes(app, ctx);
  registerRunRoutes(app, ctx);
  registerConfigurationVersionRoutes(app, ctx);
  registerPlanRoutes(app, ctx);
  registerRunEventRoutes(app, ctx);
  registerCommentRoutes(app, ctx);
  registerPolicyCheckRoutes(app, ctx);
  registerTaskStageRoutes(app, ctx);
  registerPolicyEvaluationRoutes(app, ctx);
  registerPolicySetOutcomeRoutes(app, ctx);
}

/**
 * Every resource type's definition (its folder's `schema.ts`), by schema name: the shared response
 * schemas and the vocabulary profile's translations are read off these.
 */
export const RESOURCE_DEFINITIONS: readonly ResourceDefinition[] = [
  ADMIN_ORGANIZATION,
  AUTHENTICATION_TOKEN,
  COMMENT,
  CONFIGURATION_VERSION,
  ORGANIZATION,
  PLAN,
  POLICY,
  POLICY_CHECK,
  POLICY_EVALUATION,
  POLICY_SET,
  POLICY_SET_OUTCOME,
  POLICY_SET_PARAMETER,
  POLICY_SET_VERSION,
  PROJECT,
  RUN,
  RUN_EVENT,
  TASK_STAGE,
  TEAM,
  USER,
  WORKSPACE,
];

/** Every shared resource schema, in the names of the served profile. */
export const resourceSchemas = (names: WireNames): TSchema[] =>
  RESOURCE_DEFINITIONS.map((d) => d.served(names));
