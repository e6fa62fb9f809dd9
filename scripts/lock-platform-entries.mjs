// The npm registry reachable here serves only the linux-x64 builds of some packages' platform
// binaries (biome, turbo). `npm install` then leaves the other platforms' optional dependencies out
// of package-lock.json, and `npm ci` refuses the lock as "out of sync". This adds lock entries for
// them with their os/cpu constraints (taken from the package's own optionalDependencies); npm skips
// them on non-matching platforms and fetches them normally where they apply.
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const platform = (name) => {
  const n = name.split('/').pop();
  const os = /win32|windows/.test(n)
    ? 'win32'
    : /darwin/.test(n)
      ? 'darwin'
      : /android/.test(n)
        ? 'android'
        : /freebsd/.test(n)
          ? 'freebsd'
          : 'linux';
  const cpu = /arm64/.test(n) ? 'arm64' : /arm/.test(n) ? 'arm' : /ia32/.test(n) ? 'ia32' : 'x64';
  const libc = os === 'linux' ? (/musl/.test(n) ? ['musl'] : ['glibc']) : undefined;
  return { os, cpu, libc };
};
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (lock.packages[key] || lock.packages[`${path}/node_modules/${dep}`]) continue;
    const { os, cpu, libc } = platform(dep);
    lock.packages[key] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      cpu: [cpu],
      ...(libc ? { libc } : {}),
    };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform-specific lock entries`);
