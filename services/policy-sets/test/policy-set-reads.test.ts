import * as grpc from '@grpc/grpc-js';
import type { Db } from '@policyhub/db';
import { readServiceError } from '@policyhub/grpc-runtime';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { managerOf, startHarness } from './support/policy-sets-harness.js';

// A set is read row first, checked against the caller, and only then are its linked items
// (policies, workspaces, projects, exclusions) loaded, in one statement for every set read
// together: a hidden or missing set costs one row read, never a scan of the link tables.

const ORG = 'acme';
const tenancy = {
  organizations: { acme: {}, globex: {} },
  workspaces: {
    'ws-1': { organization: ORG, projectId: 'prj-1' },
    'ws-2': { organization: ORG, projectId: 'prj-1' },
  },
  projects: { 'prj-1': { organization: ORG } },
};
const owner = { principal: managerOf(ORG) };
/** Manages policies, but in another organization: every set of `acme` is hidden from it. */
const stranger = { principal: managerOf('globex') };

const LINK_TABLES = /policy_set_(policies|workspaces|projects|workspace_exclusions)\b/;

interface Statement {
  text: string;
  values: unknown[];
}

let h: Awaited<ReturnType<typeof startHarness>>;
let setId: string;
let policyId: string;
/** Statements about policy sets the service issued since the last reset (background work left out). */
let statements: Statement[] = [];

/** Records every statement the service's pool runs, inside transactions too. */
function instrument(db: Db): void {
  const record = (text: string, values: unknown[] | undefined) => {
    if (/policy_set/.test(text)) statements.push({ text, values: values ?? [] });
  };
  const query = db.query.bind(db);
  db.query = ((text: string, values?: unknown[], options?: never) => {
    record(text, values);
    return query(text, values, options);
  }) as Db['query'];
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn, options) =>
    transaction(
      (tx) =>
        fn({
          query: (text: string, values?: unknown[], o?: never) => {
            record(text, values);
            return tx.query(text, values, o);
          },
        } as typeof tx),
      options,
    )) as Db['transaction'];
}

const linkReads = () => statements.filter((s) => LINK_TABLES.test(s.text));

async function expectNotFound(call: Promise<unknown>) {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the call should fail').toBeDefined();
  expect(readServiceError(err).status).toBe(grpc.status.NOT_FOUND);
}

beforeAll(async () => {
  h = await startHarness(tenancy);
  instrument(h.service.db);
  policyId = (await h.clients.policies.CreatePolicy({ organization: ORG, name: 'tags' }, owner)).policy!.id;
  setId = (
    await h.clients.policySets.CreatePolicySet(
      {
        organization: ORG,
        name: 'linked',
        policyIds: { ids: [policyId] },
        workspaceIds: { ids: ['ws-1'] },
        projectIds: { ids: ['prj-1'] },
        workspaceExclusionIds: { ids: ['ws-2'] },
      },
      owner,
    )
  ).policySet!.id;
});
afterAll(async () => {
  await h?.stop();
});
beforeEach(() => {
  statements = [];
});

describe('reading a policy set: visibility before linked items', () => {
  it('answers a hidden set NOT_FOUND after reading its row alone', async () => {
    await expectNotFound(h.clients.policySets.GetPolicySet({ id: setId }, stranger));
    expect(linkReads()).toEqual([]);
    expect(statements).toHaveLength(1);
  });

  it('answers a missing set NOT_FOUND after one row read', async () => {
    await expectNotFound(h.clients.policySets.GetPolicySet({ id: 'polset-missing' }, owner));
    expect(linkReads()).toEqual([]);
    expect(statements).toHaveLength(1);
  });

  it('refuses changes to a hidden set before loading its linked items or opening a transaction', async () => {
    await expectNotFound(h.clients.policySets.UpdatePolicySet({ id: setId, name: 'renamed' }, stranger));
    await expectNotFound(h.clients.policySets.DeletePolicySet({ id: setId }, stranger));
    await expectNotFound(
      h.clients.policySets.AttachWorkspaces({ policySetId: setId, ids: ['ws-2'] }, stranger),
    );
    await expectNotFound(
      h.clients.policySets.RemovePolicies({ policySetId: setId, ids: [policyId] }, stranger),
    );
    expect(linkReads()).toEqual([]);
    expect(statements).toHaveLength(4);
    const after = (await h.clients.policySets.GetPolicySet({ id: setId }, owner)).policySet!;
    expect(after.name).toBe('linked');
    expect(after.workspaceIds).toEqual(['ws-1']);
    expect(after.policyIds).toEqual([policyId]);
  });

  it('returns a visible set with every linked item, loaded in one statement', async () => {
    const set = (await h.clients.policySets.GetPolicySet({ id: setId }, owner)).policySet!;
    expect(set).toMatchObject({
      policyIds: [policyId],
      workspaceIds: ['ws-1'],
      projectIds: ['prj-1'],
      workspaceExclusionIds: ['ws-2'],
      policyCount: 1,
      workspaceCount: 1,
      projectCount: 1,
    });
    expect(linkReads()).toHaveLength(1);
  });

  it('loads the linked items of the visible sets of a batch only', async () => {
    const hidden = (
      await h.clients.policySets.CreatePolicySet(
        { organization: 'globex', name: 'theirs', workspaceExclusionIds: { ids: [] } },
        stranger,
      )
    ).policySet!.id;
    statements = [];
    const { policySets } = await h.clients.policySets.BatchGetPolicySets(
      { ids: [setId, hidden, 'polset-missing'] },
      owner,
    );
    expect(policySets.map((s) => [s.id, s.workspaceIds])).toEqual([[setId, ['ws-1']]]);
    const reads = linkReads();
    expect(reads).toHaveLength(1);
    expect(reads[0]!.values).toEqual([[setId]]);
  });
});
