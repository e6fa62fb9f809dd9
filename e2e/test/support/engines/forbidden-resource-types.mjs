#!/usr/bin/env node
// A small but real policy engine for the tests, speaking the engine contract of
// docs/evaluator.md: each policy's code lists forbidden resource types (one per line, `#`
// comments); a policy fails when the plan creates or updates a resource of such a type.
//
// Test switches (environment):
//   ENGINE_LOG=<file>   append one JSON line per evaluation: {"policy_check_id", "pid"}
//   ENGINE_HANG=<file>  write the file, then hang (a worker that is killed mid-evaluation)
import { appendFileSync, writeFileSync } from 'node:fs';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));

if (process.env.ENGINE_HANG) {
  writeFileSync(process.env.ENGINE_HANG, request.policy_check_id);
  setInterval(() => {}, 1_000);
} else {
  if (process.env.ENGINE_LOG) {
    appendFileSync(
      process.env.ENGINE_LOG,
      `${JSON.stringify({ policy_check_id: request.policy_check_id, pid: process.pid })}\n`,
    );
  }
  const changed = (request.plan.resource_changes ?? []).filter((rc) =>
    (rc.change?.actions ?? []).some((a) => a === 'create' || a === 'update'),
  );
  const policies = [];
  let rules = 0;
  for (const set of request.policy_sets) {
    for (const policy of set.policies) {
      const forbidden = policy.code
        .split('\n')
        .map((line) => line.replace(/#.*/, '').trim())
        .filter(Boolean);
      rules += forbidden.length;
      const violations = changed.filter((rc) => forbidden.includes(rc.type));
      policies.push({
        policy_set_id: set.id,
        policy: policy.name,
        passed: violations.length === 0,
        output:
          violations.length === 0
            ? [
                `TRUE - ${policy.name} - no forbidden resource types (${forbidden.join(', ') || 'none listed'})`,
              ]
            : violations.map((rc) => `FALSE - ${policy.name} - ${rc.address} has forbidden type ${rc.type}`),
      });
    }
  }
  process.stdout.write(JSON.stringify({ policies, details: { engine: 'forbidden-resource-types', rules } }));
}
