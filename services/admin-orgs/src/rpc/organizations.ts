import type { adminorgsV1 } from '@policyhub/contracts';
import { type Handlers, OWNER, PERMISSIONS } from '@policyhub/grpc-runtime';
import { permissionsIn } from '../domain/rules.js';
import type { OrganizationUseCases } from '../use-cases/organizations.js';
import { toOrganization } from './mappers.js';

export function organizationHandlers(
  organizations: OrganizationUseCases,
): Handlers<adminorgsV1.OrganizationsHandlers> {
  return {
    async CreateOrganization(req, { principal }) {
      const org = await organizations.create(principal, req.name, req.email);
      // The creator owns it.
      return { organization: toOrganization(org, [...PERMISSIONS, OWNER]) };
    },

    async GetOrganization(req, { principal }) {
      const org = await organizations.get(principal, req.name);
      return { organization: toOrganization(org, permissionsIn(principal, org.name)) };
    },

    async ListOrganizations(req, { principal }) {
      const res = await organizations.list(principal, req.page);
      return {
        organizations: res.organizations.map((o) => toOrganization(o, permissionsIn(principal, o.name))),
        page: res.page,
      };
    },

    async UpdateOrganization(req, { principal }) {
      const org = await organizations.update(principal, req.name, {
        newName: req.newName ?? undefined,
        email: req.email ?? undefined,
      });
      return { organization: toOrganization(org, permissionsIn(principal, req.name)) };
    },

    async DeleteOrganization(req, { principal }) {
      await organizations.delete(principal, req.name);
      return {};
    },
  };
}
