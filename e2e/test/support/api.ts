/** A tiny JSON:API client over fetch, as a script or CI job would use the server. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | undefined,
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const url = path.startsWith('http')
      ? path
      : `${this.baseUrl}${path.startsWith('/api/v2') ? '' : '/api/v2'}${path}`;
    const h: Record<string, string> = { accept: 'application/vnd.api+json', ...headers };
    if (this.token) h.authorization = `Bearer ${this.token}`;
    let payload: string | Uint8Array | undefined;
    if (body instanceof Uint8Array) payload = body;
    else if (typeof body === 'string') payload = body;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !h['content-type']) h['content-type'] = 'application/vnd.api+json';
    const res = await fetch(url, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  patch<T = any>(path: string, body?: unknown) {
    return this.request<T>('PATCH', path, body);
  }
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, body, headers);
  }
  delete<T = any>(path: string, body?: unknown) {
    return this.request<T>('DELETE', path, body);
  }
}
