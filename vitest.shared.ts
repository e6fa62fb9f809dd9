import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = dirname(fileURLToPath(import.meta.url));

/** Workspace packages resolve to their TypeScript sources in tests (no build step needed). */
function workspaceAliases(): Record<string, string> {
  const aliases: Record<string, string> = {};
  for (const group of ['packages', 'services']) {
    for (const name of readdirSync(join(root, group))) {
      const entry = join(root, group, name, 'src', 'index.ts');
      if (existsSync(entry)) aliases[`@policyhub/${name}`] = entry;
    }
  }
  for (const name of ['embedded']) aliases[`@policyhub/${name}`] = join(root, name, 'src', 'index.ts');
  return aliases;
}

export default defineConfig({
  resolve: { alias: workspaceAliases() },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
