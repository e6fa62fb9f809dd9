import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Ports for child processes that bind them seconds later (after compiling TypeScript). A port
 * that was merely free a moment ago is not enough there: another test process, or anything
 * binding port 0, may take it in between, and a child that then fails to bind while another
 * process answers its health check looks "ready". So ports come from below the kernel's
 * ephemeral range (bind(0) and outgoing connections never use them) and are reserved across
 * test processes with a lock file per port.
 */
const LOCK_DIR = join(tmpdir(), `policyhub-test-ports-${process.getuid?.() ?? 'user'}`);
const LOWEST = 20_000;

function ephemeralRangeStart(): number {
  try {
    const start = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return Number.isInteger(start) && start > LOWEST + 1_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Creates the lock file of `port` unless a live process holds it. */
function lock(port: number): boolean {
  const file = join(LOCK_DIR, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch {
      let owner: string;
      try {
        owner = readFileSync(file, 'utf8').trim();
      } catch {
        continue; // released meanwhile: try again
      }
      // Empty: its owner is writing its pid right now.
      if (!owner || isAlive(Number(owner))) return false;
      rmSync(file, { force: true }); // left behind by a process that died
    }
  }
  return false;
}

const isBindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

export interface PortReservation {
  ports: number[];
  release(): void;
}

/** `count` distinct free loopback ports, held for this process until release() or exit. */
export async function reservePorts(count: number): Promise<PortReservation> {
  mkdirSync(LOCK_DIR, { recursive: true });
  const end = ephemeralRangeStart();
  const ports: number[] = [];
  const release = () => {
    for (const port of ports.splice(0)) rmSync(join(LOCK_DIR, String(port)), { force: true });
  };
  process.once('exit', release);
  for (let tries = 0; ports.length < count; tries++) {
    if (tries > count * 200) {
      release();
      throw new Error(`no ${count} free ports between ${LOWEST} and ${end}`);
    }
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (ports.includes(port) || !lock(port)) continue;
    if (await isBindable(port)) ports.push(port);
    else rmSync(join(LOCK_DIR, String(port)), { force: true });
  }
  return { ports, release };
}
