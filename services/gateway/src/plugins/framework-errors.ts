import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '@policyhub/errors';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { httpError } from '../errors/http-errors.js';
import { JSON_API } from '../jsonapi/media-type.js';

/**
 * Router errors, raised before any route or hook runs: a URL that is not validly percent-encoded
 * (400) and a path parameter longer than maxParamLength (414). Same JSON:API shape as every error.
 */
export function sendFrameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const mapped = tooLong
    ? httpError('GATEWAY_URI_TOO_LONG', 'a path segment of the URL is too long')
    : httpError('GATEWAY_INVALID_URL', 'the URL is not validly percent-encoded');
  reply.status(mapped.statusCode).type(JSON_API).send(mapped.body);
}

/** What went wrong in a request the HTTP parser refused, by llhttp/Node error code. */
function framingProblem(code: string | undefined): [code: ErrorCode, detail: string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['GATEWAY_REQUEST_TIMEOUT', 'the request did not arrive in time'];
    case 'HPE_HEADER_OVERFLOW':
      return ['GATEWAY_HEADERS_TOO_LARGE', 'the request headers are too large'];
    case 'HPE_INVALID_METHOD':
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
      return ['GATEWAY_MALFORMED_REQUEST', 'the request line is malformed'];
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return ['GATEWAY_MALFORMED_REQUEST', 'a request header is malformed'];
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
    case 'HPE_INVALID_EOF_STATE':
      return ['GATEWAY_MALFORMED_REQUEST', 'the chunked request body is malformed'];
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return ['GATEWAY_INVALID_CONTENT_LENGTH', 'the Content-Length header is invalid'];
    default:
      return ['GATEWAY_MALFORMED_REQUEST', 'the request is not valid HTTP/1.1'];
  }
}

/**
 * Requests the HTTP parser refuses (bad request line, bad header, broken chunked encoding, …)
 * never reach fastify's routing: Node reports them on the socket. Answer them with the same
 * JSON:API error shape and security headers as everything else, then close the connection
 * (fastify's default writes a non-JSON:API body). Nothing was routed, so nothing can have changed.
 */
export function handleClientError(
  err: Error & { code?: string },
  socket: Socket,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, detail] = framingProblem(err.code);
  const response = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !response?.headersSent) {
    const { statusCode: status, body: document } = httpError(code, detail);
    const body = JSON.stringify(document);
    const extra = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_API}\r\n${extra}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
