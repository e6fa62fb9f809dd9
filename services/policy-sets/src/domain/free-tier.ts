import { invalidAttribute, unprocessable } from '@policyhub/errors';

/**
 * The spec's free tier: one policy set of at most five policies, no VCS repository, no versions
 * created through the API. It is an organization entitlement (admin-orgs `is_free_tier`), off by
 * default on a self-hosted install; these checks run only for organizations that have it.
 */
export const FREE_TIER = { maxPolicySets: 1, maxPoliciesPerSet: 5 } as const;

export function checkFreeTierSetCount(existingSets: number): void {
  if (existingSets >= FREE_TIER.maxPolicySets) {
    throw unprocessable(
      'POLICY_SETS_FREE_TIER_LIMIT',
      `The free tier allows ${FREE_TIER.maxPolicySets} policy set per organization; upgrade to create more`,
    );
  }
}

export function checkFreeTierPolicyCount(policyCount: number, pointer = 'policies'): void {
  if (policyCount > FREE_TIER.maxPoliciesPerSet) {
    throw invalidAttribute(
      'POLICY_SETS_FREE_TIER_LIMIT',
      pointer,
      `The free tier allows at most ${FREE_TIER.maxPoliciesPerSet} policies in a policy set; upgrade to add more`,
    );
  }
}

export function checkFreeTierVcsRepo(hasVcsRepo: boolean): void {
  if (hasVcsRepo) {
    throw invalidAttribute(
      'POLICY_SETS_FREE_TIER_LIMIT',
      'vcs_repo',
      'The free tier does not include connecting a policy set to a VCS repository; upgrade to use one',
    );
  }
}

/** For the versions code: creating versions through the API needs a higher tier. */
export function checkFreeTierApiVersions(): never {
  throw unprocessable(
    'POLICY_SETS_FREE_TIER_LIMIT',
    'The free tier does not include creating policy set versions through the API; upgrade to use them',
  );
}
