export { buildApp, type GatewayDeps } from './app.js';
export { createClients, type Clients, type ServiceAddresses } from './clients/index.js';
export { MemoryPrincipalCache, type PrincipalCache } from './auth/principal-cache.js';
