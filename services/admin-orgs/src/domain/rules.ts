import { AppError, type CodeOf, ValidationErrors, invalidAttribute, notFound } from '@policyhub/errors';
import {
  OWNER,
  PERMISSIONS,
  type Permission,
  type Principal,
  canAccessOrganization,
  hasPermission,
} from '@policyhub/permissions';

/** Organization, workspace and user names: letters, digits, `-` and `_`. */
export const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
/** Project names may also contain spaces. */
export const PROJECT_NAME_PATTERN = /^[A-Za-z0-9 _-]+$/;
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

/** Owners of an organization (its `owners` team) may manage the organization and its teams. */
export { OWNER };

export function requireName(
  value: string,
  field: string,
  code: CodeOf<'invalid'>,
  pattern = NAME_PATTERN,
  max = 90,
): void {
  if (!value || value.trim() === '') throw invalidAttribute(code, field, `${label(field)} can't be blank`);
  if (value.length > max)
    throw invalidAttribute(code, field, `${label(field)} is too long (maximum is ${max} characters)`);
  if (!pattern.test(value)) {
    throw invalidAttribute(
      code,
      field,
      `${label(field)} is invalid: only letters, numbers, ${pattern === PROJECT_NAME_PATTERN ? 'spaces, ' : ''}- and _ are allowed`,
    );
  }
}

export function requireEmail(value: string, field: string, code: CodeOf<'invalid'>): void {
  if (!EMAIL_PATTERN.test(value)) throw invalidAttribute(code, field, `${label(field)} is invalid`);
}

/**
 * The distinct permissions a team grants, from their words (`toWord` of each requested value);
 * `undefined` marks a value without a word (the unspecified zero value).
 */
export function validatePermissions(perms: ReadonlyArray<Permission | undefined>): Permission[] {
  const errors = new ValidationErrors();
  for (const p of perms) {
    if (p === undefined)
      errors.add('ADMIN_ORGS_UNKNOWN_PERMISSION', 'organization_access', 'unknown permission');
  }
  errors.throwIfAny();
  return [...new Set(perms as Permission[])];
}

/** Not being allowed to see something looks exactly like it not existing. */
export function requireAccess(principal: Principal | undefined, organization: string): void {
  if (!canAccessOrganization(principal, organization)) throw notFound();
}

export function requirePermission(
  principal: Principal | undefined,
  organization: string,
  permission: Permission,
): void {
  if (!hasPermission(principal, organization, permission)) throw notFound();
}

export function requireOwner(principal: Principal | undefined, organization: string): void {
  if (principal?.isSiteAdmin) return;
  if (!principal?.memberships.get(organization)?.includes(OWNER)) throw notFound();
}

/** The caller's permission words in an organization, with OWNER when an owner (site admins: all). */
export const permissionsIn = (p: Principal | undefined, organization: string): string[] =>
  p?.isSiteAdmin ? [...PERMISSIONS, OWNER] : [...(p?.memberships.get(organization) ?? [])];

export const isOwnerOrAdmin = (p: Principal | undefined, organization: string): boolean =>
  !!p?.isSiteAdmin || !!p?.memberships.get(organization)?.includes(OWNER);

export function requireSiteAdmin(principal: Principal | undefined): void {
  if (!principal?.isSiteAdmin) throw notFound();
}

export function requirePrincipal(principal: Principal | undefined): Principal {
  if (!principal) throw new AppError('unauthenticated', 'UNAUTHORIZED', [{ title: 'unauthorized' }]);
  return principal;
}

/** `name` → `Name`, `organization_access` → `Organization access` (the detail's subject). */
const label = (field: string): string => {
  const last = field.split('.').pop() ?? 'value';
  const words = last.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};
