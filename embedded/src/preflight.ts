import { createServer } from 'node:net';

/** What `listen` on host:port fails with right now (undefined: it can be bound). */
function bindError(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** `host:port` or `[v6]:port` (validated by the config shape) as its parts. */
export function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(at + 1)) };
}

/** The one line an operator sees when `variable` names an address this process cannot listen on. */
export function listenProblem(variable: string, shown: string, err: NodeJS.ErrnoException): string {
  const hint = variable === 'PORT' ? 'set PORT to a free port' : `set ${variable} to a free address`;
  switch (err.code) {
    case 'EADDRINUSE':
      return `${variable} ${shown} is in use; ${hint}`;
    case 'EACCES':
      return `${variable} ${shown} needs privileges this process does not have; ${hint} above 1023`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `${variable} ${shown}: no such address on this machine`;
    default:
      return `${variable} ${shown} cannot be listened on (${err.code ?? err.message})`;
  }
}

/**
 * Checks the fixed listen addresses before anything is started (no data directory is
 * initialised for a start that cannot serve): one line per problem, empty when all are free.
 * Port 0 (any free port) is not checked.
 */
export async function listenProblems(
  listeners: Array<{ variable: string; host: string; port: number; shown: string }>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const l of listeners) {
    if (l.port === 0) continue;
    const err = await bindError(l.host, l.port);
    if (err) problems.push(listenProblem(l.variable, l.shown, err));
  }
  return problems;
}
