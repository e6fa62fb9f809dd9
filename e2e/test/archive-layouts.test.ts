import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './support/api.js';
import { policyArchive, putArchive, sentinelHcl, tarGzOf } from './support/archives.js';
import { createOrganization, createPolicySet } from './support/fixtures.js';
import { startTestSystem, type TestSystem } from './support/system.js';

// A version's archive must be a policy set of the set's kind: kind_a (Sentinel) needs a
// sentinel.hcl whose sources are all in the archive, kind_b (OPA) a policies.hcl with queries and
// .rego files. Anything else ends `errored` and leaves the set's current version as it was.

let t: TestSystem;
let api: ApiClient;
let orgName: string;

beforeAll(async () => {
  t = await startTestSystem();
  const org = await createOrganization(t, 'layouts');
  api = org.owner.api;
  orgName = org.name;
});
afterAll(() => t?.stop());

async function newVersion(setId: string) {
  const res = await api.post(`/policy-sets/${setId}/versions`);
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id as string, upload: res.body.data.links.upload as string };
}

const versionOf = async (id: string) => (await api.get(`/policy-set-versions/${id}`)).body.data;
const setOf = async (id: string) => (await api.get(`/policy-sets/${id}`)).body.data;

/** A kind_a set whose current version is a ready, valid archive. */
async function setWithCurrentVersion(kind: 'kind_a' | 'kind_b' = 'kind_a', archive?: Buffer) {
  const set = await createPolicySet(api, orgName, { kind });
  const v = await newVersion(set.id);
  const put = await putArchive(v.upload, archive ?? (await policyArchive()));
  expect(put.status, put.text).toBe(200);
  expect((await versionOf(v.id)).attributes.status).toBe('ready');
  return { setId: set.id as string, currentId: v.id };
}

const opaArchive = () =>
  tarGzOf([
    {
      name: 'policies.hcl',
      content:
        'policy "public_ingress" {\n  query = "data.terraform.policies.public_ingress.deny"\n  enforcement_level = "mandatory"\n}\n',
    },
    { name: 'policies/public_ingress.rego', content: 'package terraform.policies.public_ingress\n' },
  ]);

const wrongArchives: Array<[string, 'kind_a' | 'kind_b', () => Promise<Buffer>, string, string]> = [
  [
    'an archive holding only a README.md',
    'kind_a',
    () => tarGzOf([{ name: 'README.md', content: '# our policies\n' }]),
    'STORAGE_ARCHIVE_CONFIG_MISSING',
    'the archive has no sentinel.hcl at its root',
  ],
  [
    'a sentinel.hcl naming a policy that is not in the archive',
    'kind_a',
    () =>
      tarGzOf([
        { name: 'sentinel.hcl', content: sentinelHcl('allow', 'x') },
        { name: 'policies/allow.sentinel', content: 'main = rule { true }\n' },
      ]),
    'STORAGE_ARCHIVE_SOURCE_MISSING',
    'sentinel.hcl: policy "x" source "./policies/x.sentinel" is not in the archive',
  ],
  [
    'a sentinel.hcl with a remote module',
    'kind_a',
    () =>
      tarGzOf([
        {
          name: 'sentinel.hcl',
          content: `module "fns" {\n  source = "https://example.com/fns.sentinel"\n}\n\n${sentinelHcl('allow')}`,
        },
        { name: 'policies/allow.sentinel', content: 'main = rule { true }\n' },
      ]),
    'STORAGE_ARCHIVE_CONFIG_INVALID',
    'sentinel.hcl: module "fns" source "https://example.com/fns.sentinel" is remote; remote sources cannot be fetched, put the file in the archive',
  ],
  [
    'a sentinel.hcl that is not HCL',
    'kind_a',
    () =>
      tarGzOf([
        { name: 'sentinel.hcl', content: 'policy "allow" {\n  source = ./policies/allow.sentinel\n' },
        { name: 'policies/allow.sentinel', content: 'main = rule { true }\n' },
      ]),
    'STORAGE_ARCHIVE_CONFIG_INVALID',
    expect.stringMatching(/^sentinel\.hcl cannot be parsed: sentinel\.hcl:2,/),
  ],
  [
    'a Sentinel archive uploaded to an OPA set',
    'kind_b',
    () => policyArchive(),
    'STORAGE_ARCHIVE_CONFIG_MISSING',
    'the archive has no policies.hcl or policies.json at its root',
  ],
];

describe('archives are checked for the layout of their set kind', () => {
  it.each(wrongArchives)(
    'errors %s (%s) and keeps the current version',
    async (_label, kind, build, code, message) => {
      const { setId, currentId } = await setWithCurrentVersion(
        kind,
        kind === 'kind_b' ? await opaArchive() : undefined,
      );
      const v = await newVersion(setId);
      const put = await putArchive(v.upload, await build());
      expect(put.status, put.text).toBe(422);
      expect(put.body.errors[0]?.detail).toEqual(message);

      expect((await versionOf(v.id)).attributes).toMatchObject({
        status: 'errored',
        error: code,
        'error-message': message,
        'status-timestamps': { 'errored-at': expect.any(String) },
        upload: null,
      });
      const set = await setOf(setId);
      expect(set.relationships['current-version'].data.id).toBe(currentId);
      expect(set.relationships['newest-version'].data.id).toBe(v.id);
    },
  );

  it('accepts an OPA policy set for a kind_b set and makes it current', async () => {
    const { setId, currentId } = await setWithCurrentVersion('kind_b', await opaArchive());
    expect((await setOf(setId)).relationships['current-version'].data.id).toBe(currentId);
  });
});
