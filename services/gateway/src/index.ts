export { buildApp, type GatewayDeps } from './app.js';
export {
  allowedHostsEnv,
  bodyLimitsConfigShape,
  bodyLimitsOf,
  gatewayConfigShape,
  publicUrlEnv,
  rateLimitConfigShape,
  trustProxyEnv,
} from './config.js';
export type { BodyLimitOptions } from './plugins/body-limits.js';
export { createClients, type Clients, type ServiceAddresses } from './clients/index.js';
export { MemoryPrincipalCache, type PrincipalCache } from './auth/principal-cache.js';
export { createEdgeStores, type EdgeStores } from './edge-stores.js';
export type { RateLimitOptions } from './plugins/rate-limit.js';
export { RedisPrincipalCache } from './auth/redis-principal-cache.js';
export { apiVocabulary } from './config.js';
export { VOCABULARY_PROFILES, type VocabularyProfile } from './vocabulary.js';
export { backendReadiness } from './readiness.js';
