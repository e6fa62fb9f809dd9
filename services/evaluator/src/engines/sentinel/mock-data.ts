/**
 * Mock data for Sentinel's Terraform imports, generated from a plan JSON (`terraform show
 * -json`) following HashiCorp's documented `tfplan/v2` structure:
 *
 *   tfplan/v2
 *   ├── terraform_version (string)
 *   ├── variables         name → { name, value }
 *   ├── planned_values
 *   │   ├── outputs       name → { name, sensitive, value }
 *   │   └── resources     address → { address, module_address, mode, type, name, index,
 *   │                                 provider_name, values, depends_on, tainted, deposed_key }
 *   ├── resource_changes  address[:deposed] → { address, module_address, mode, type, name,
 *   │                                 index, provider_name, deposed,
 *   │                                 change: { actions, before, after, after_unknown } }
 *   ├── resource_drift    (the same shape as resource_changes)
 *   ├── output_changes    name → { name, change: { actions, before, after, after_unknown } }
 *   └── raw               the whole plan JSON
 *
 * Maps are null-prototype objects: addresses and names come from the plan.
 */

import type { RunFacts } from '../engine.js';
import { runData } from '../run-data.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): JsonObject => (isObject(v) ? v : {});
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const dict = (): JsonObject => Object.create(null) as JsonObject;

/** A plan JSON document that can be turned into mock data; throws saying what is wrong. */
export function requirePlanDocument(plan: unknown): JsonObject {
  if (!isObject(plan)) throw new Error('the plan JSON is not an object');
  if (plan.resource_changes !== undefined && !Array.isArray(plan.resource_changes)) {
    throw new Error('the plan JSON has a "resource_changes" that is not an array');
  }
  return plan;
}

function change(c: unknown): JsonObject {
  const ch = obj(c);
  return {
    actions: arr(ch.actions),
    before: ch.before ?? null,
    after: ch.after ?? null,
    after_unknown: ch.after_unknown ?? {},
  };
}

function resourceChanges(list: unknown): JsonObject {
  const out = dict();
  for (const item of arr(list)) {
    const rc = obj(item);
    const address = str(rc.address);
    const deposed = str(rc.deposed);
    out[deposed ? `${address}:${deposed}` : address] = {
      address,
      module_address: str(rc.module_address),
      mode: str(rc.mode),
      type: str(rc.type),
      name: str(rc.name),
      index: rc.index ?? null,
      provider_name: str(rc.provider_name),
      deposed,
      change: change(rc.change),
    };
  }
  return out;
}

/** Every resource of a module and its child modules (planned_values.root_module), by address. */
function plannedResources(module: unknown, out: JsonObject = dict()): JsonObject {
  const m = obj(module);
  const moduleAddress = str(m.address);
  for (const item of arr(m.resources)) {
    const r = obj(item);
    const address = str(r.address);
    out[address] = {
      address,
      module_address: moduleAddress,
      mode: str(r.mode),
      type: str(r.type),
      name: str(r.name),
      index: r.index ?? null,
      provider_name: str(r.provider_name),
      values: r.values ?? {},
      depends_on: arr(r.depends_on),
      tainted: r.tainted === true,
      deposed_key: str(r.deposed_key),
    };
  }
  for (const child of arr(m.child_modules)) plannedResources(child, out);
  return out;
}

/** The `tfplan/v2` import's data for a plan JSON document. */
export function tfplanV2(planDocument: unknown): JsonObject {
  const plan = requirePlanDocument(planDocument);
  const variables = dict();
  for (const [name, v] of Object.entries(obj(plan.variables))) {
    variables[name] = { name, value: obj(v).value ?? null };
  }
  const planned = obj(plan.planned_values);
  const outputs = dict();
  for (const [name, o] of Object.entries(obj(planned.outputs))) {
    outputs[name] = { name, sensitive: obj(o).sensitive === true, value: obj(o).value ?? null };
  }
  const outputChanges = dict();
  for (const [name, c] of Object.entries(obj(plan.output_changes))) {
    outputChanges[name] = { name, change: change(c) };
  }
  return {
    terraform_version: str(plan.terraform_version),
    variables,
    planned_values: { outputs, resources: plannedResources(planned.root_module) },
    resource_changes: resourceChanges(plan.resource_changes),
    resource_drift: resourceChanges(plan.resource_drift),
    output_changes: outputChanges,
    raw: plan,
  };
}

/** The `tfrun` import's data: the run as upstream exposes it to policies (run-data.ts). */
export const tfrun = (run: RunFacts): JsonObject => runData(run) as JsonObject;

/**
 * A Sentinel module file defining one top-level value per key (`key = <value>`), the form
 * Sentinel mocks take (`mock "tfplan/v2" { module { source = "…" } }`). Sentinel's map and
 * list literals, strings, numbers, booleans and null read like JSON, so values are written as
 * JSON; keys must be identifiers.
 */
export function renderSentinelModule(values: JsonObject): string {
  const lines = ["# Generated by PolicyHub from the run's plan JSON; do not edit.", ''];
  for (const [key, value] of Object.entries(values)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new Error(`${key} is not a Sentinel identifier`);
    lines.push(`${key} = ${JSON.stringify(value)}`, '');
  }
  return lines.join('\n');
}
