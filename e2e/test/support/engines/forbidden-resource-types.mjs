#!/usr/bin/env node
// A small but real policy engine for the tests, speaking the engine contract (version 2) of
// docs/evaluator.md: each policy's code lists forbidden resource types (one per line, `#`
// comments); a policy fails when the plan creates or updates a resource of such a type. It
// evaluates individual policies and archive sets alike: for an archive it evaluates exactly the
// policies the worker read from its sentinel.hcl (`archive_policies`), reading each policy file
// from the extracted archive.
//
// Test switches (environment):
//   ENGINE_LOG=<file>   append one JSON line per evaluation: {"policy_check_id", "pid", "plan_bytes"}
//   ENGINE_HANG=<file>  write the file, then hang (a worker that is killed mid-evaluation)
//   ENGINE_REPORT=miss|invent|duplicate   a broken report: drop the first policy, add one that
//                       is not part of the check, or report the first one twice
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
if (request.contract_version !== 2) {
  process.stderr.write(`unsupported contract version ${request.contract_version}\n`);
  process.exit(2);
}

if (process.env.ENGINE_HANG) {
  writeFileSync(process.env.ENGINE_HANG, request.policy_check_id);
  setInterval(() => {}, 1_000);
} else {
  if (process.env.ENGINE_LOG) {
    appendFileSync(
      process.env.ENGINE_LOG,
      `${JSON.stringify({ policy_check_id: request.policy_check_id, pid: process.pid, plan_bytes: statSync(request.plan_path).size })}\n`,
    );
  }
  const plan = JSON.parse(readFileSync(request.plan_path, 'utf8'));
  const changed = (plan.resource_changes ?? []).filter((rc) =>
    (rc.change?.actions ?? []).some((a) => a === 'create' || a === 'update'),
  );
  const policies = [];
  let rules = 0;
  const evaluate = (set, name, code, level) => {
    const forbidden = code
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean);
    rules += forbidden.length;
    const violations = changed.filter((rc) => forbidden.includes(rc.type));
    policies.push({
      policy_set_id: set.id,
      policy: name,
      passed: violations.length === 0,
      ...(level ? { enforcement_level: level } : {}),
      output:
        violations.length === 0
          ? [`TRUE - ${name} - no forbidden resource types (${forbidden.join(', ') || 'none listed'})`]
          : violations.map((rc) => `FALSE - ${name} - ${rc.address} has forbidden type ${rc.type}`),
    });
  };
  for (const set of request.policy_sets) {
    for (const policy of set.policies) evaluate(set, policy.name, policy.code, undefined);
    for (const policy of set.archive_policies ?? []) {
      const dir = set.policies_path ? join(set.archive_dir, set.policies_path) : set.archive_dir;
      const file = join(dir, policy.source || `${policy.name}.sentinel`);
      evaluate(set, policy.name, readFileSync(file, 'utf8'), policy.enforcement_level);
    }
  }
  if (process.env.ENGINE_REPORT === 'miss') policies.shift();
  if (process.env.ENGINE_REPORT === 'invent' && policies[0])
    policies.push({ ...policies[0], policy: 'invented-policy' });
  if (process.env.ENGINE_REPORT === 'duplicate' && policies[0]) policies.push(policies[0]);
  process.stdout.write(JSON.stringify({ policies, details: { engine: 'forbidden-resource-types', rules } }));
}
