export { startAdminOrgs, ADMIN_ORGS_SCHEMA, type AdminOrgsOptions } from './service.js';
export { hashToken } from './db/identity-repository.js';
