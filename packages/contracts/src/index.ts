export { contracts, messageRoot, encodeMessage, decodeMessage } from './loader.js';
export { loaderOptions, protoRoot } from './options.js';
export type { ProtoGrpcType } from './generated/index.js';
