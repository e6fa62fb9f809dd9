import type { RunFacts } from '../../src/engines/engine.js';

/** A speculative run of workspace ws-1 in organization acme, as the worker hands it to engines. */
export const RUN_FACTS: RunFacts = {
  id: 'run-1',
  createdAt: '2026-01-01T00:00:00.000Z',
  message: 'ci',
  speculative: true,
  organization: { name: 'acme' },
  workspace: { id: 'ws-1' },
};
