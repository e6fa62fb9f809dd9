export { buildApp, type GatewayDeps } from './app.js';
export { createClients, type Clients, type ServiceAddresses } from './clients/index.js';
export { MemoryPrincipalCache, type PrincipalCache } from './auth/principal-cache.js';
export { createEdgeStores, type EdgeStores } from './edge-stores.js';
export { MemoryRateLimiter } from './rate-limit/memory-rate-limiter.js';
export { RedisRateLimiter } from './rate-limit/redis-rate-limiter.js';
export type { RateLimiter, RateLimitDecision } from './rate-limit/rate-limiter.js';
export { RedisPrincipalCache } from './auth/redis-principal-cache.js';
