import type { ValidationErrors } from '@policyhub/errors';

/** A set's VCS repository; null = not set. */
export interface VcsRepo {
  identifier: string;
  branch: string | null;
  oauthTokenId: string | null;
  githubAppInstallationId: string | null;
  ingressSubmodules: boolean;
}

const POINTER = 'vcs_repo';
const SEGMENT = '[^\\s/]+';
/** `<namespace>/<repo>`, or the `<org>/<project>/_git/<repo>` form of one hosting provider. */
const IDENTIFIER = new RegExp(`^${SEGMENT}/${SEGMENT}$|^${SEGMENT}/${SEGMENT}/_git/${SEGMENT}$`);

/** Checks the repository object: identifier format, and exactly one way to reach the VCS host. */
export function checkVcsRepo(errors: ValidationErrors, repo: VcsRepo): void {
  if (repo.identifier === '') {
    errors.add('POLICY_SETS_INVALID_VCS_REPO', `${POINTER}.identifier`, "Identifier can't be blank");
  } else if (!IDENTIFIER.test(repo.identifier)) {
    errors.add(
      'POLICY_SETS_INVALID_VCS_REPO',
      `${POINTER}.identifier`,
      'Identifier must have the format <namespace>/<repo> (or <org>/<project>/_git/<repo>)',
    );
  }
  if (repo.oauthTokenId !== null && repo.githubAppInstallationId !== null) {
    errors.add(
      'POLICY_SETS_INVALID_VCS_REPO',
      `${POINTER}.github_app_installation_id`,
      'oauth-token-id and github-app-installation-id cannot be given together',
    );
  } else if (repo.oauthTokenId === null && repo.githubAppInstallationId === null) {
    errors.add(
      'POLICY_SETS_INVALID_VCS_REPO',
      `${POINTER}.oauth_token_id`,
      'Either oauth-token-id or github-app-installation-id is required',
    );
  }
}
