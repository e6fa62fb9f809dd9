/**
 * A small JSON:API client over fetch for the PolicyHub (and upstream-compatible) API: bearer
 * token, JSON:API media type, errors turned into one readable line, 429 answered by waiting for
 * the rate-limit window.
 */

export class ApiError extends Error {
  /**
   * @param {string} message
   * @param {number} status HTTP status, 0 when the server could not be reached
   */
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** @param {string} address base URL, with or without `/api/v2` */
export function apiBase(address) {
  let url;
  try {
    url = new URL(address);
  } catch {
    throw new ApiError(
      `the address ${JSON.stringify(address)} is not a URL (e.g. https://policyhub.example.com)`,
      0,
    );
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v2$/, '');
  return `${url.origin}${path}/api/v2`;
}

/** @param {unknown} body @returns {string} */
function describeErrors(body) {
  const errors =
    /** @type {{errors?: Array<{title?: string, detail?: string, source?: {pointer?: string}}>}} */ (body)
      ?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return '';
  return errors
    .map((e) =>
      [e.title, e.detail, e.source?.pointer ? `(at ${e.source.pointer})` : ''].filter(Boolean).join(': '),
    )
    .join('; ');
}

export class Api {
  /**
   * @param {string} address
   * @param {string} token
   */
  constructor(address, token) {
    this.base = apiBase(address);
    this.token = token;
  }

  /**
   * @param {string} method
   * @param {string} path under /api/v2 (or an absolute URL)
   * @param {{ json?: unknown, body?: any, contentType?: string }} [options]
   * @returns {Promise<{ status: number, body: any, text: string }>}
   */
  async request(method, path, options = {}) {
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/vnd.api+json', authorization: `Bearer ${this.token}` };
    /** @type {any} */
    let body;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/vnd.api+json';
      body = JSON.stringify(options.json);
    } else if (options.body !== undefined) {
      headers['content-type'] = options.contentType ?? 'application/octet-stream';
      body = options.body;
    }
    for (let attempt = 1; ; attempt++) {
      let res;
      try {
        res = await fetch(url, {
          method,
          headers,
          body,
          ...(body && typeof body !== 'string' ? { duplex: 'half' } : {}),
        });
      } catch (err) {
        const cause = /** @type {{cause?: {code?: string, message?: string}}} */ (err).cause;
        throw new ApiError(
          `cannot reach ${new URL(url).origin}: ${cause?.code ?? cause?.message ?? /** @type {Error} */ (err).message}`,
          0,
        );
      }
      const text = await res.text();
      /** @type {any} */
      let parsed;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      // Rate limited: wait for the window (X-RateLimit-Reset, seconds), a few times, when the body can be re-sent.
      if (res.status === 429 && attempt < 5 && (body === undefined || typeof body === 'string')) {
        const reset = Number(res.headers.get('x-ratelimit-reset') ?? '1');
        await sleep(Math.min(Math.max(reset, 0.2), 10) * 1000);
        continue;
      }
      if (res.status >= 400) {
        const what = `${method} ${new URL(url).pathname}`;
        if (res.status === 401) throw new ApiError(`${what}: 401 unauthorized: the token was refused`, 401);
        const detail = describeErrors(parsed) || text.slice(0, 200) || res.statusText;
        throw new ApiError(`${what}: ${res.status} ${detail}`, res.status);
      }
      return { status: res.status, body: parsed, text };
    }
  }

  /** @param {string} path */
  get(path) {
    return this.request('GET', path);
  }
}

/** @param {number} ms @param {AbortSignal} [signal] */
export const sleep = (ms, signal) =>
  new Promise((resolve) => {
    // An abort ends the wait early; the caller checks the signal.
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve(undefined);
    }
    signal?.addEventListener('abort', done, { once: true });
  });
