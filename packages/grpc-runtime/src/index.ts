export * from './principal.js';
export * from './internal-auth.js';
export * from './status.js';
export * from './server.js';
export * from './client.js';
