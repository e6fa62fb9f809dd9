import type { adminorgsV1 } from '@policyhub/contracts';
import { AppError, type ErrorItem } from '@policyhub/errors';
import { RequestDocument } from '../../jsonapi/body.js';
import { resourceBody, stringListAttribute } from '../../schemas/jsonapi.js';
import { CANONICAL } from '../../vocabulary.js';
import { ADMIN_ORGANIZATION } from './schema.js';

const MAX_CONSUMERS = 1000;

const invalid = (items: ErrorItem[]) => new AppError('invalid', 'GATEWAY_INVALID_BODY', items);

const mismatch = (first: string, second: string): ErrorItem => ({
  title: 'invalid attribute',
  detail: `${second} and ${first} are the same setting and must not differ`,
  pointer: `/data/attributes/${second}`,
});

/**
 * One value sent under any of several names (a canonical attribute, its aliases, its spellings in
 * either vocabulary). Several may be sent if they agree; differing values are a 422 pointing at
 * the later name.
 */
function oneOf<T>(names: readonly string[], read: (name: string) => T | undefined): T | undefined {
  let first: { name: string; value: T } | undefined;
  for (const name of names) {
    const value = read(name);
    if (value === undefined) continue;
    if (first && JSON.stringify(first.value) !== JSON.stringify(value))
      throw invalid([mismatch(first.name, name)]);
    first ??= { name, value };
  }
  return first?.value;
}

/** Every name a timeout may be sent under: its own, and its alias in either vocabulary. */
const APPLY_TIMEOUT = ['apply-timeout', ...ADMIN_ORGANIZATION.spellings(CANONICAL.applyTimeoutAlias)];
const PLAN_TIMEOUT = ['plan-timeout', ...ADMIN_ORGANIZATION.spellings(CANONICAL.planTimeoutAlias)];
const WORKER_SUDO = ADMIN_ORGANIZATION.spellings(CANONICAL.workerSudoEnabled);

/**
 * `PATCH /admin/organizations/:name`. `data.type` may be `organizations` or empty (the Go client
 * sends `""`). Timeouts: a string is a new duration (checked by admin-orgs), null or `""` resets to
 * the instance default; the deprecated alias writes the same value. `workspace-limit`: an integer
 * ≥ 0 (0 is kept as 0), null resets to "no limit". `sso-enabled` is read-only and ignored, like
 * any unknown attribute.
 */
export function readAdminOrganizationUpdate(
  body: unknown,
  name: string,
): adminorgsV1.UpdateAdminOrganizationRequest {
  const doc = new RequestDocument(body);
  /** A new duration, `null` (reset: null or `""`) or undefined (absent). */
  const timeout = (names: readonly string[]): string | null | undefined => {
    const value = oneOf(names, (n) => doc.nullableString(n));
    return value === '' ? null : value;
  };
  const request: adminorgsV1.UpdateAdminOrganizationRequest = {
    name,
    accessBetaTools: doc.boolean('access-beta-tools'),
    globalModuleSharing: doc.boolean('global-module-sharing'),
    globalProviderSharing: doc.boolean('global-provider-sharing'),
    isDisabled: doc.boolean('is-disabled'),
    workerSudoEnabled: oneOf(WORKER_SUDO, (n) => doc.boolean(n)),
  };
  const applyTimeout = timeout(APPLY_TIMEOUT);
  if (applyTimeout === null) request.clearApplyTimeout = true;
  else request.applyTimeout = applyTimeout;
  const planTimeout = timeout(PLAN_TIMEOUT);
  if (planTimeout === null) request.clearPlanTimeout = true;
  else request.planTimeout = planTimeout;
  const limit = doc.nullableInteger('workspace-limit');
  if (limit === null) request.clearWorkspaceLimit = true;
  else if (limit !== undefined) request.workspaceLimit = limit;
  return request;
}

/**
 * `PUT /admin/organizations/:name/registry-partnerships`: attributes `module-consumers` and/or
 * `provider-consumers`, arrays of organization names (underscore spellings accepted too, as in
 * upstream's documentation sample). At least one of them is required.
 */
export function readRegistryPartnerships(
  body: unknown,
  name: string,
): adminorgsV1.UpdateRegistryPartnershipsRequest {
  const doc = new RequestDocument(body);
  const list = (hyphenated: string) => {
    const names = oneOf([hyphenated, hyphenated.replace('-', '_')], (n) => doc.stringArray(n));
    if (names && names.length > MAX_CONSUMERS) {
      throw invalid([
        {
          title: 'invalid attribute',
          detail: `too many organizations (maximum is ${MAX_CONSUMERS})`,
          pointer: `/data/attributes/${hyphenated}`,
        },
      ]);
    }
    return names === undefined ? null : { names: [...new Set(names)] };
  };
  const moduleConsumers = list('module-consumers');
  const providerConsumers = list('provider-consumers');
  if (!moduleConsumers && !providerConsumers) {
    throw invalid([
      {
        title: 'invalid attribute',
        detail: 'module-consumers or provider-consumers is required',
        pointer: '/data/attributes',
      },
    ]);
  }
  return { name, moduleConsumers, providerConsumers };
}

/** The route schema of `PUT /admin/organizations/:name/registry-partnerships`. */
export const REGISTRY_PARTNERSHIPS = resourceBody(
  'registry-partnerships',
  Object.fromEntries(
    ['module-consumers', 'module_consumers', 'provider-consumers', 'provider_consumers'].map((n) => [
      n,
      stringListAttribute(n, 'Organization names.'),
    ]),
  ),
);
