import { defineConfig } from 'vitest/config';
import shared from '../vitest.shared.ts';

/** `npm run test:containers`: suites against real engines in containers (skip without Docker). */
export default defineConfig({
  ...shared,
  test: { ...shared.test, include: ['containers/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 300_000 },
});
