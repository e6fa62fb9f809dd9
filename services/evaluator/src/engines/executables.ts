import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

const isExecutableFile = (path: string): boolean => {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * An engine's CLI: `variable` (e.g. SENTINEL_BIN) when set, which must be an absolute path to an
 * executable file, else `name` on PATH. Looked up once, at start.
 */
export function findExecutable(
  env: Record<string, string | undefined>,
  variable: string,
  name: string,
): { path: string } | { problem: string } {
  const configured = env[variable]?.trim();
  if (configured) {
    if (!isAbsolute(configured)) return { problem: `${variable}=${configured} is not an absolute path` };
    return isExecutableFile(configured)
      ? { path: configured }
      : { problem: `${variable}=${configured} is not an executable file` };
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return { path: candidate };
  }
  return { problem: `${variable} is not set and there is no \`${name}\` executable on PATH` };
}

/** What `<path> <args…>` prints (a broken binary is reported as the problem). */
export function printedBy(path: string, args: readonly string[], maxBytes = 64 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(path, args, { timeout: 10_000, maxBuffer: maxBytes }, (err, stdout) => {
      if (err) return reject(new Error(`${path} ${args.join(' ')} failed: ${err.message}`));
      resolve(stdout);
    });
  });
}
