#!/usr/bin/env node
/**
 * The policy engine of the go-tfe suite, for EVALUATOR_COMMAND (engine contract v2,
 * docs/evaluator.md). go-tfe's policy-check tests upload one-line Sentinel policies,
 * `main = rule { true }` or `main = rule { false }`; the real Sentinel CLI cannot be installed
 * where CI runs, so this engine decides exactly those two literal rules and refuses anything else
 * (exit 1: the check ends errored, never passed). Not a Sentinel implementation.
 */
import { readFileSync } from 'node:fs';

const request = JSON.parse(readFileSync(0, 'utf8'));
const LITERAL = /^\s*main\s*=\s*rule\s*\{\s*(true|false)\s*\}\s*$/;
const policies = [];
for (const set of request.policy_sets) {
  if (set.archive_path) {
    process.stderr.write(
      `literal-rule engine: set ${set.id} is versioned; only individual policies are supported\n`,
    );
    process.exit(1);
  }
  for (const p of set.policies) {
    const match = LITERAL.exec(p.code ?? '');
    if (!match) {
      process.stderr.write(`literal-rule engine: policy ${p.name} is not "main = rule { true|false }"\n`);
      process.exit(1);
    }
    const passed = match[1] === 'true';
    policies.push({
      policy_set_id: set.id,
      policy: p.name,
      passed,
      output: [`${passed ? 'TRUE' : 'FALSE'} - ${p.name}.sentinel:1:1 - Rule "main"`],
    });
  }
}
process.stdout.write(`${JSON.stringify({ policies })}\n`);
