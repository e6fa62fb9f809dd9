// The permission model lives in @policyhub/permissions (transport-free); re-exported for adapters.
export * from '@policyhub/permissions';
export * from './internal-auth.js';
export { principalFromProto } from './authenticated-principal.js';
export * from './status.js';
export * from './server.js';
export * from './streams.js';
export * from './client.js';
export { MAX_MESSAGE_BYTES } from './message-limit.js';
export { enableInProcessCalls, serveInProcess } from './in-process.js';
export { UploadTokens, type UploadTokenClaims, purposeKey } from './upload-tokens.js';
