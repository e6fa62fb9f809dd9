export {
  startPolicySets,
  POLICY_SETS_SCHEMA,
  type PolicySetsOptions,
  policySetsConfigShape,
} from './service.js';
export { generateParameterKey, parseParameterKeys } from './crypto/parameter-keys.js';
