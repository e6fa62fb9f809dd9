export { contracts, messageRoot, encodeMessage, decodeMessage } from './loader.js';
export { loaderOptions, protoRoot } from './options.js';
export type * from './generated/index.js';
