export {
  startPolicySets,
  POLICY_SETS_SCHEMA,
  type PolicySetsOptions,
  policySetsConfigShape,
} from './service.js';
