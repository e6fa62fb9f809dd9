import { defineConfig } from 'vitest/config';

/** The CLI is plain JavaScript: its unit tests are `.test.mjs` files beside the code. */
export default defineConfig({ test: { include: ['src/**/*.test.mjs'] } });
