export { startPolicySets, POLICY_SETS_SCHEMA, type PolicySetsOptions } from './service.js';
