import http from 'node:http';
import type { ApiClient, ApiResponse } from './api.js';
import { concretePath, type Endpoint, type PreparedCall } from './route-catalog.js';

export const UNAUTHORIZED = { errors: [{ status: '401', code: 'UNAUTHORIZED', title: 'unauthorized' }] };
export const NOT_FOUND = { errors: [{ status: '404', code: 'NOT_FOUND', title: 'not found' }] };

/**
 * Makes the prepared call as `client`'s user, exactly as a client would (JSON:API or raw bytes),
 * with `query` (already encoded) appended when given.
 */
export function sendCall(
  client: ApiClient,
  endpoint: Endpoint,
  call: PreparedCall,
  method: string = endpoint.method,
  query?: string,
): Promise<ApiResponse> {
  const search = [call.query, query].filter(Boolean).join('&');
  const url = `${client.baseUrl}${concretePath(endpoint, call.params)}${search ? `?${search}` : ''}`;
  if (call.raw) return client.request(method, url, call.raw, { 'content-type': 'application/octet-stream' });
  return client.request(method, url, call.body);
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: unknown;
}

/**
 * One HTTP request with exactly this path (fetch would normalise `..`, `%2e` and friends) and
 * body, optionally chunked (no Content-Length).
 */
export function rawRequest(
  baseUrl: string,
  options: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: Uint8Array | string;
    chunked?: boolean;
  },
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: hostname, port, method: options.method, path: options.path, headers: options.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = text;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on('error', reject);
      },
    );
    // The server may answer (413) and close before the whole body is written: the write fails but
    // the answer still arrives. Give it a moment before calling the request failed.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') setTimeout(() => reject(err), 1_000).unref();
      else reject(err);
    });
    const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
    if (body === undefined) {
      req.end();
    } else if (options.chunked) {
      // Explicitly: Node frames GET and DELETE bodies only when told to.
      req.setHeader('transfer-encoding', 'chunked');
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024));
      req.end();
    } else {
      req.setHeader('content-length', String(body.length));
      req.end(body);
    }
  });
}

/** A JSON:API error document: an `errors` array of objects whose `status` is a string. */
export function isErrorDocument(body: unknown, status: number): boolean {
  if (typeof body !== 'object' || body === null || !('errors' in body)) return false;
  const errors = (body as { errors: unknown }).errors;
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every(
      (e) =>
        typeof e === 'object' &&
        e !== null &&
        (e as { status?: unknown }).status === String(status) &&
        typeof (e as { title?: unknown }).title === 'string',
    )
  );
}
