/**
 * The largest gRPC message a client or server of this project sends or receives: 16 MiB, so that
 * a policy's code at its 10 MiB limit fits one unary message. Plans and archives, which are far
 * larger, travel as streams or object references.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
