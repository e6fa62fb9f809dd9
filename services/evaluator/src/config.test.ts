import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadEvaluatorConfig } from './config.js';

const TOKEN = 'e'.repeat(40);

describe('evaluator configuration', () => {
  it('defaults everything but its token, and reads blank engine paths as unset', () => {
    const config = loadEvaluatorConfig({
      EVALUATOR_TOKEN: TOKEN,
      OPA_BIN: '  ',
      SENTINEL_BIN: '/opt/sentinel',
    });
    expect(config).toMatchObject({
      RUNS_ADDR: '127.0.0.1:50053',
      OPA_BIN: undefined,
      SENTINEL_BIN: '/opt/sentinel',
      EVALUATOR_LEASE_SECONDS: 300,
      EVALUATOR_TIMEOUT_SECONDS: 600,
      EVALUATOR_CONCURRENCY: availableParallelism(),
      OPS_PORT: 0,
    });
  });

  it('refuses, one line per variable, a missing token and a lease runs would not grant', () => {
    expect(() => loadEvaluatorConfig({ EVALUATOR_LEASE_SECONDS: '3601' })).toThrow(
      /EVALUATOR_TOKEN: is required: one of the runs service's EVALUATOR_TOKENS \(unset\)[\s\S]*EVALUATOR_LEASE_SECONDS: /,
    );
    expect(() => loadEvaluatorConfig({ EVALUATOR_TOKEN: TOKEN, EVALUATOR_CONCURRENCY: '0' })).toThrow(
      /EVALUATOR_CONCURRENCY: /,
    );
    expect(() => loadEvaluatorConfig({ EVALUATOR_TOKEN: 'short' })).toThrow(
      /EVALUATOR_TOKEN: must be at least 32 characters \(got "\*\*\*"\)/,
    );
  });
});
