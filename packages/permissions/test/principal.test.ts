import { describe, expect, it } from 'vitest';
import {
  canAccessOrganization,
  hasPermission,
  principalFromJson,
  principalOf,
  principalToJson,
} from '../src/index.js';

const member = principalOf({ userId: 'user-1', username: 'alice', isSiteAdmin: false }, [
  ['acme', ['manage-policies', 'read-runs']],
]);

describe('permission model', () => {
  it('grants only the permissions a membership lists, in that organization only', () => {
    expect(hasPermission(member, 'acme', 'manage-policies')).toBe(true);
    expect(hasPermission(member, 'acme', 'manage-policy-overrides')).toBe(false);
    expect(hasPermission(member, 'other', 'manage-policies')).toBe(false);
    expect(hasPermission(undefined, 'acme', 'read-runs')).toBe(false);
  });

  it('lets a site admin act in any organization', () => {
    const admin = principalOf({ userId: 'user-0', username: 'root', isSiteAdmin: true });
    expect(hasPermission(admin, 'anything', 'manage-policy-overrides')).toBe(true);
    expect(canAccessOrganization(admin, 'anything')).toBe(true);
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])(
    'never treats the Object.prototype key %s as a membership',
    (name) => {
      expect(canAccessOrganization(member, name)).toBe(false);
      expect(hasPermission(member, name, 'read-runs')).toBe(false);
    },
  );

  it('round-trips through its JSON form and rejects malformed JSON', () => {
    const back = principalFromJson(JSON.parse(JSON.stringify(principalToJson(member))));
    expect(back && hasPermission(back, 'acme', 'read-runs')).toBe(true);
    expect(
      principalFromJson({ ...principalToJson(member), memberships: { acme: ['read-runs'] } }),
    ).toBeUndefined();
    expect(
      principalFromJson({ userId: 1, username: 'x', isSiteAdmin: false, memberships: [] }),
    ).toBeUndefined();
    expect(
      principalFromJson({ userId: 'u', username: 'x', isSiteAdmin: false, memberships: [['acme', [1]]] }),
    ).toBeUndefined();
  });

  it('counts a membership only for data of the organization that holds the name now', () => {
    const current = principalOf(
      { userId: 'user-1', username: 'alice', isSiteAdmin: false },
      [['acme', ['read-runs']]],
      [['acme', 'org-new']],
    );
    expect(hasPermission(current, 'acme', 'read-runs', 'org-new')).toBe(true);
    // A deleted organization that had the same name is another organization.
    expect(hasPermission(current, 'acme', 'read-runs', 'org-old')).toBe(false);
    // Data recorded before ids existed goes by the name.
    expect(hasPermission(current, 'acme', 'read-runs', null)).toBe(true);
    // A principal without ids reaches no data that has one.
    expect(hasPermission(member, 'acme', 'read-runs', 'org-new')).toBe(false);
    const back = principalFromJson(JSON.parse(JSON.stringify(principalToJson(current))));
    expect(back && hasPermission(back, 'acme', 'read-runs', 'org-new')).toBe(true);
    expect(
      principalFromJson({ ...principalToJson(current), organizationIds: { acme: 'org-new' } }),
    ).toBeUndefined();
  });
});
