/** One HTTP request as a load driver saw it. */
export interface Outcome {
  label: string;
  /** 0 when no response arrived within the deadline or the connection failed. */
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON:API document or error document, read by tests
  body: any;
  /** The response's Retry-After header, when it has one. */
  retryAfter?: string;
  /** Why there was no response. */
  failure?: string;
}

/** A JSON:API request with a hard deadline: a server that hangs shows up as status 0, never as a stuck test. */
export async function requestWithin(
  deadlineMs: number,
  url: string,
  init: { method: string; token?: string | undefined; body?: unknown; label?: string },
): Promise<Outcome> {
  const headers: Record<string, string> = { accept: 'application/vnd.api+json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | Uint8Array | undefined;
  if (init.body instanceof Uint8Array) {
    body = init.body;
    headers['content-type'] = 'application/octet-stream';
  } else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] = 'application/vnd.api+json';
  }
  const label = init.label ?? `${init.method} ${url}`;
  try {
    const res = await fetch(url, {
      method: init.method,
      headers,
      body,
      signal: AbortSignal.timeout(deadlineMs),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the text
    }
    const retryAfter = res.headers.get('retry-after');
    return { label, status: res.status, body: parsed, ...(retryAfter === null ? {} : { retryAfter }) };
  } catch (err) {
    return { label, status: 0, body: undefined, failure: (err as Error).message };
  }
}

export interface Load {
  /** Outcomes so far (grows while the load runs). */
  readonly outcomes: Outcome[];
  /** Stops the workers after their current request and returns every outcome. */
  stop(): Promise<Outcome[]>;
}

/**
 * Runs `workers` loops, each calling `step` back to back until stop(): a steady stream of
 * requests from several clients while the test changes the world underneath.
 */
export function driveLoad(
  workers: number,
  step: (worker: number, iteration: number) => Promise<Outcome>,
): Load {
  const outcomes: Outcome[] = [];
  let stopped = false;
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let i = 0; !stopped; i++) {
      outcomes.push(await step(worker, i));
      // A failing backend answers instantly; do not spin the CPU the system needs to recover.
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    outcomes,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return outcomes;
    },
  };
}
