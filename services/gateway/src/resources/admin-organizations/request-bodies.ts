import type { adminorgsV1 } from '@policyhub/contracts';
import { AppError, type ErrorItem } from '@policyhub/errors';
import { RequestDocument } from '../../jsonapi/body.js';
import { VOCABULARY, WIRE } from '../../vocabulary.js';

const MAX_CONSUMERS = 1000;

const invalid = (items: ErrorItem[]) => new AppError('invalid', 'GATEWAY_INVALID_BODY', items);

const mismatch = (first: string, second: string): ErrorItem => ({
  title: 'invalid attribute',
  detail: `${second} and ${first} are the same setting and must not differ`,
  pointer: `/data/attributes/${second}`,
});

/**
 * One value sent under either of two names (a canonical attribute and its alias). Both may be
 * sent if they agree; differing values are a 422 pointing at the second name.
 */
function either<T>(first: string, second: string, read: (name: string) => T | undefined): T | undefined {
  const a = read(first);
  const b = read(second);
  if (a !== undefined && b !== undefined && JSON.stringify(a) !== JSON.stringify(b))
    throw invalid([mismatch(first, second)]);
  return a !== undefined ? a : b;
}

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
  const doc = new RequestDocument(body, 'organizations', { allowEmptyType: true });
  const timeout = (canonical: string, alias: string): string | undefined => {
    const value = either(canonical, alias, (n) => doc.nullableString(n, { maxLength: 64 }));
    return value === null ? '' : value;
  };
  const request: adminorgsV1.UpdateAdminOrganizationRequest = {
    name,
    accessBetaTools: doc.boolean('access-beta-tools'),
    globalModuleSharing: doc.boolean('global-module-sharing'),
    globalProviderSharing: doc.boolean('global-provider-sharing'),
    isDisabled: doc.boolean('is-disabled'),
    workerSudoEnabled: either(WIRE.workerSudoEnabled, VOCABULARY.upstream.workerSudoEnabled, (n) =>
      doc.boolean(n),
    ),
    applyTimeout: timeout('apply-timeout', WIRE.applyTimeoutAlias),
    planTimeout: timeout('plan-timeout', WIRE.planTimeoutAlias),
  };
  const limit = doc.nullableInteger('workspace-limit', { min: 0 });
  if (limit === null) request.clearWorkspaceLimit = true;
  else if (limit !== undefined) request.workspaceLimit = limit;
  doc.done();
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
  const doc = new RequestDocument(body, 'registry-partnerships');
  const list = (hyphenated: string) => {
    const names = either(hyphenated, hyphenated.replace('-', '_'), (n) => doc.stringArray(n));
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
  doc.done();
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
