export {
  startAdminOrgs,
  ADMIN_ORGS_SCHEMA,
  adminOrgsConfigShape,
  siteAdminTokenEnv,
  type AdminOrgsOptions,
  auditRetentionConfigShape,
  auditRetentionSettings,
} from './service.js';
export { hashToken } from './db/identity-repository.js';
