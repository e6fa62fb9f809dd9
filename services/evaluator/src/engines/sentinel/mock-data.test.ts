import { describe, expect, it } from 'vitest';
import { RUN_FACTS } from '../../../test/support/run-facts.js';
import { renderSentinelModule, tfplanV2, tfrun } from './mock-data.js';

/**
 * A plan as `terraform show -json` writes it: a root resource, a resource in a child module,
 * a deposed object, a variable, an output and its change.
 */
const plan = {
  format_version: '1.2',
  terraform_version: '1.9.5',
  variables: { region: { value: 'eu-west-1' } },
  planned_values: {
    outputs: { bucket: { sensitive: false, value: 'logs' } },
    root_module: {
      resources: [
        {
          address: 'aws_s3_bucket.logs',
          mode: 'managed',
          type: 'aws_s3_bucket',
          name: 'logs',
          provider_name: 'registry.terraform.io/hashicorp/aws',
          schema_version: 0,
          values: { bucket: 'logs', acl: 'private' },
          sensitive_values: {},
        },
      ],
      child_modules: [
        {
          address: 'module.net',
          resources: [
            {
              address: 'module.net.aws_vpc.main[0]',
              mode: 'managed',
              type: 'aws_vpc',
              name: 'main',
              index: 0,
              provider_name: 'registry.terraform.io/hashicorp/aws',
              values: { cidr_block: '10.0.0.0/16' },
              depends_on: ['aws_s3_bucket.logs'],
            },
          ],
        },
      ],
    },
  },
  resource_changes: [
    {
      address: 'aws_s3_bucket.logs',
      mode: 'managed',
      type: 'aws_s3_bucket',
      name: 'logs',
      provider_name: 'registry.terraform.io/hashicorp/aws',
      change: { actions: ['create'], before: null, after: { bucket: 'logs' }, after_unknown: { id: true } },
    },
    {
      address: 'module.net.aws_vpc.main[0]',
      module_address: 'module.net',
      mode: 'managed',
      type: 'aws_vpc',
      name: 'main',
      index: 0,
      provider_name: 'registry.terraform.io/hashicorp/aws',
      change: {
        actions: ['update'],
        before: { cidr_block: '10.1.0.0/16' },
        after: { cidr_block: '10.0.0.0/16' },
        after_unknown: {},
      },
    },
    {
      address: 'aws_instance.old',
      mode: 'managed',
      type: 'aws_instance',
      name: 'old',
      deposed: '00000001',
      provider_name: 'registry.terraform.io/hashicorp/aws',
      change: { actions: ['delete'], before: { ami: 'ami-1' }, after: null, after_unknown: {} },
    },
  ],
  output_changes: {
    bucket: { actions: ['create'], before: null, after: 'logs', after_unknown: false },
  },
};

describe("tfplan/v2 mock data (HashiCorp's documented import structure)", () => {
  const data = tfplanV2(plan);

  it('has the documented top-level collections', () => {
    expect(Object.keys(data).sort()).toEqual(
      [
        'output_changes',
        'planned_values',
        'raw',
        'resource_changes',
        'resource_drift',
        'terraform_version',
        'variables',
      ].sort(),
    );
    expect(data.terraform_version).toBe('1.9.5');
    expect(data.raw).toEqual(plan);
  });

  it('variables: indexed by name, each {name, value}', () => {
    expect(data.variables).toEqual({ region: { name: 'region', value: 'eu-west-1' } });
  });

  it('resource_changes: indexed by address (deposed objects by address:deposed), with the change', () => {
    const rc = data.resource_changes as Record<string, Record<string, unknown>>;
    expect(Object.keys(rc)).toEqual([
      'aws_s3_bucket.logs',
      'module.net.aws_vpc.main[0]',
      'aws_instance.old:00000001',
    ]);
    expect(rc['aws_s3_bucket.logs']).toEqual({
      address: 'aws_s3_bucket.logs',
      module_address: '',
      mode: 'managed',
      type: 'aws_s3_bucket',
      name: 'logs',
      index: null,
      provider_name: 'registry.terraform.io/hashicorp/aws',
      deposed: '',
      change: { actions: ['create'], before: null, after: { bucket: 'logs' }, after_unknown: { id: true } },
    });
    expect(rc['module.net.aws_vpc.main[0]']).toMatchObject({ module_address: 'module.net', index: 0 });
    expect(rc['aws_instance.old:00000001']).toMatchObject({
      deposed: '00000001',
      change: { actions: ['delete'], after: null },
    });
  });

  it('planned_values: resources of every module by address, outputs by name', () => {
    const pv = data.planned_values as {
      resources: Record<string, unknown>;
      outputs: Record<string, unknown>;
    };
    expect(Object.keys(pv.resources)).toEqual(['aws_s3_bucket.logs', 'module.net.aws_vpc.main[0]']);
    expect(pv.resources['module.net.aws_vpc.main[0]']).toEqual({
      address: 'module.net.aws_vpc.main[0]',
      module_address: 'module.net',
      mode: 'managed',
      type: 'aws_vpc',
      name: 'main',
      index: 0,
      provider_name: 'registry.terraform.io/hashicorp/aws',
      values: { cidr_block: '10.0.0.0/16' },
      depends_on: ['aws_s3_bucket.logs'],
      tainted: false,
      deposed_key: '',
    });
    expect(pv.outputs).toEqual({ bucket: { name: 'bucket', sensitive: false, value: 'logs' } });
  });

  it('output_changes: indexed by name, each {name, change}', () => {
    expect(data.output_changes).toEqual({
      bucket: {
        name: 'bucket',
        change: { actions: ['create'], before: null, after: 'logs', after_unknown: false },
      },
    });
  });

  it('a plan without optional parts still gives every collection', () => {
    const minimal = tfplanV2({ format_version: '1.2', resource_changes: [] });
    expect(minimal).toMatchObject({
      terraform_version: '',
      variables: {},
      planned_values: { outputs: {}, resources: {} },
      resource_changes: {},
      output_changes: {},
    });
    expect(() => tfplanV2([])).toThrow(/not an object/);
    expect(() => tfplanV2({ resource_changes: {} })).toThrow(/not an array/);
  });

  it('addresses that look like prototype keys stay data', () => {
    const odd = tfplanV2({ resource_changes: [{ address: '__proto__', change: { actions: ['create'] } }] });
    expect(Object.keys(odd.resource_changes as object)).toEqual(['__proto__']);
  });
});

describe('Sentinel mock modules', () => {
  it('write one top-level value per key in Sentinel literal syntax', () => {
    const text = renderSentinelModule({
      terraform_version: '1.9.5',
      resource_changes: { 'a.b': { change: { after: null } } },
    });
    expect(text).toContain('terraform_version = "1.9.5"');
    expect(text).toContain('resource_changes = {"a.b":{"change":{"after":null}}}');
    expect(() => renderSentinelModule({ 'not an identifier': 1 })).toThrow(/not a Sentinel identifier/);
  });

  it('tfrun holds what PolicyHub knows of the run, and nothing it does not', () => {
    expect(tfrun(RUN_FACTS)).toEqual({
      id: 'run-1',
      created_at: '2026-01-01T00:00:00.000Z',
      message: 'ci',
      speculative: true,
      organization: { name: 'acme' },
      workspace: { id: 'ws-1' },
    });
    expect(tfrun({ ...RUN_FACTS, isDestroy: true, workspace: { id: 'ws-1', name: 'prod' } })).toMatchObject({
      is_destroy: true,
      workspace: { id: 'ws-1', name: 'prod' },
    });
  });
});
