import * as grpc from '@grpc/grpc-js';
import { InProcessTransport } from '@policyhub/events';
import { readServiceError } from '@policyhub/grpc-runtime';
import { createLogger } from '@policyhub/telemetry';
import { testSigningKeys } from '@policyhub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParameterSealer, parseParameterKeys } from '../src/crypto/parameter-keys.js';
import { startPolicySets } from '../src/index.js';
import { managerOf, startHarness, TEST_PARAMETER_KEY } from './support/policy-sets-harness.js';

const ORG = 'acme';
const tenancy = {
  organizations: { acme: {} },
  workspaces: { 'ws-1': { organization: ORG, projectId: 'prj-1' } },
  projects: { 'prj-1': { organization: ORG } },
};
const as = { principal: managerOf(ORG) };
const SECRET = 'hunter2-sealed-value';

let h: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  h = await startHarness(tenancy);
});
afterAll(async () => {
  await h?.stop();
});

const applicableParameters = async () => {
  const res = await h.clients.applicable.GetApplicablePolicySets({
    organization: ORG,
    organizationId: `org-id-${ORG}`,
    workspaceId: 'ws-1',
    projectId: 'prj-1',
  });
  return res.policySets.map((s) => ({ id: s.id, parameters: s.parameters }));
};

const parameterValues = async (policySetIds: string[], organizationId = `org-id-${ORG}`) =>
  (
    await h.clients.applicable.GetPolicySetParameterValues({
      organization: ORG,
      organizationId,
      policySetIds,
    })
  ).policySets;

describe('policy set parameters', () => {
  it('reach the sets that apply to a run as keys; values, sensitive ones opened, only when asked for by set', async () => {
    const set = (
      await h.clients.policySets.CreatePolicySet({ organization: ORG, name: 'params', global: true }, as)
    ).policySet!;
    await h.clients.parameters.CreatePolicySetParameter(
      { policySetId: set.id, key: 'region', value: 'eu' },
      as,
    );
    const secret = (
      await h.clients.parameters.CreatePolicySetParameter(
        { policySetId: set.id, key: 'token', value: SECRET, sensitive: true },
        as,
      )
    ).parameter!;
    expect(secret.value).toBeUndefined();
    expect(await applicableParameters()).toEqual([
      {
        id: set.id,
        parameters: [
          { key: 'region', value: 'eu', sensitive: false },
          { key: 'token', value: '', sensitive: true },
        ],
      },
    ]);
    const values = [
      {
        policySetId: set.id,
        parameters: [
          { key: 'region', value: 'eu', sensitive: false },
          { key: 'token', value: SECRET, sensitive: true },
        ],
      },
    ];
    expect(await parameterValues([set.id, 'polset-unknown'])).toEqual(values);
    // Another organization's id (a re-created organization of the same name) gets nothing.
    expect(await parameterValues([set.id], 'org-id-other')).toEqual([]);
    expect(await parameterValues([])).toEqual([]);

    // At rest: the sensitive row holds only the sealed form, bound to its id.
    const { rows } = await h.service.db.query<{ value: string | null; sealed_value: string | null }>(
      'SELECT value, sealed_value FROM policy_set_parameters WHERE id = $1',
      [secret.id],
    );
    expect(rows[0]!.value).toBeNull();
    expect(rows[0]!.sealed_value).toMatch(/^test:/);
    expect(rows[0]!.sealed_value).not.toContain(SECRET);
    const sealer = new ParameterSealer([TEST_PARAMETER_KEY]);
    expect(sealer.open(secret.id, rows[0]!.sealed_value!)).toBe(SECRET);
    expect(() => sealer.open('var-other', rows[0]!.sealed_value!)).toThrow();

    // Renaming keeps the sealed value; the value itself is never answered.
    const renamed = (
      await h.clients.parameters.UpdatePolicySetParameter(
        { policySetId: set.id, id: secret.id, key: 'api-token' },
        as,
      )
    ).parameter!;
    expect(renamed).toMatchObject({ key: 'api-token', sensitive: true });
    expect(renamed.value).toBeUndefined();
    expect((await applicableParameters())[0]!.parameters[1]).toEqual({
      key: 'api-token',
      value: '',
      sensitive: true,
    });
    expect((await parameterValues([set.id]))[0]!.parameters[1]).toEqual({
      key: 'api-token',
      value: SECRET,
      sensitive: true,
    });
  });
});

describe('parameter values for the engine', () => {
  it('a sensitive value that cannot be decrypted fails the call, naming the parameter and never a value', async () => {
    const set = (
      await h.clients.policySets.CreatePolicySet({ organization: ORG, name: 'unreadable', global: true }, as)
    ).policySet!;
    const p = (
      await h.clients.parameters.CreatePolicySetParameter(
        { policySetId: set.id, key: 'token', value: SECRET, sensitive: true },
        as,
      )
    ).parameter!;
    // As after a rotation that dropped the key this value was sealed with.
    await h.service.db.query(
      "UPDATE policy_set_parameters SET sealed_value = 'dropped:' || split_part(sealed_value, ':', 2) WHERE id = $1",
      [p.id],
    );
    const err = await parameterValues([set.id]).then(
      () => expect.fail('expected a rejection'),
      (e) => readServiceError(e),
    );
    expect(err).toMatchObject({
      status: grpc.status.FAILED_PRECONDITION,
      code: 'POLICY_SETS_PARAMETER_UNREADABLE',
    });
    expect(err.items[0]!.detail).toBe(
      `parameter token (${p.id}) of policy set ${set.id} cannot be decrypted: sealed with key dropped, which is not configured`,
    );
    // The sets that apply to a run are still answered (keys only), so runs can still plan.
    expect((await applicableParameters()).find((s) => s.id === set.id)!.parameters).toEqual([
      { key: 'token', value: '', sensitive: true },
    ]);
  });
});

describe('parameter keys', () => {
  it('reads <id>:<base64> lists and refuses bad ones without echoing key material', () => {
    const key = Buffer.alloc(32, 1).toString('base64');
    expect(
      parseParameterKeys(`new:${key}, old:${Buffer.alloc(32, 2).toString('base64url')}`).map((k) => k.id),
    ).toEqual(['new', 'old']);
    expect(() => parseParameterKeys('nokey')).toThrow(/<id>:<base64 key>/);
    expect(() => parseParameterKeys(`a:${Buffer.alloc(16).toString('base64')}`)).toThrow(/32 bytes/);
    expect(() => parseParameterKeys(`a:${key},a:${key}`)).toThrow(/used twice/);
    const err = (() => {
      try {
        parseParameterKeys('a:c2hvcnQ=');
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(err).not.toContain('c2hvcnQ');
  });

  it('a rotation seals every value again with the new key at start; the old key can then go', async () => {
    const old = TEST_PARAMETER_KEY;
    const fresh = { id: 'rotated', key: Buffer.alloc(32, 9) };
    const first = await startHarness(tenancy, { parameterKeys: [old] });
    try {
      const set = (
        await first.clients.policySets.CreatePolicySet({ organization: ORG, name: 'rot', global: true }, as)
      ).policySet!;
      const p = (
        await first.clients.parameters.CreatePolicySetParameter(
          { policySetId: set.id, key: 'k', value: SECRET, sensitive: true },
          as,
        )
      ).parameter!;
      await first.service.close();
      const transport = new InProcessTransport();
      const second = await startPolicySets({
        databaseUrl: first.db.url,
        grpcAddress: '127.0.0.1:0',
        transport,
        logger: createLogger('policy-sets', 'silent'),
        adminOrgsAddress: '127.0.0.1:1',
        storageAddress: '127.0.0.1:1',
        signingKeys: testSigningKeys,
        parameterKeys: [fresh, old],
      });
      try {
        const { rows } = await second.db.query<{ sealed_value: string }>(
          'SELECT sealed_value FROM policy_set_parameters WHERE id = $1',
          [p.id],
        );
        expect(rows[0]!.sealed_value).toMatch(/^rotated:/);
        expect(new ParameterSealer([fresh]).open(p.id, rows[0]!.sealed_value)).toBe(SECRET);
      } finally {
        await second.close();
        await transport.close();
      }
    } finally {
      await first.stop().catch(() => {});
    }
  });
});
