import http from 'node:http';
import net from 'node:net';

/**
 * A PUT whose body the test releases in two halves, so the request is provably in flight (headers
 * and half the body received) while the test does something to the server.
 */
export function startSlowUpload(url: string, body: Buffer) {
  const req = http.request(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(body.length) },
  });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  response.catch(() => {}); // awaited through finish(); keeps an early failure from going unhandled
  const half = Math.floor(body.length / 2);
  return {
    sendFirstHalf: () => new Promise<void>((resolve) => req.write(body.subarray(0, half), () => resolve())),
    /** Sends the rest and resolves with the response. */
    finish: () => {
      req.end(body.subarray(half));
      return response;
    },
  };
}

/** Whether a fresh TCP connection to `baseUrl`'s port is refused (nothing listens any more). */
export function isConnectionRefused(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}
