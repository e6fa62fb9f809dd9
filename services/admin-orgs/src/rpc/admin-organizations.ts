import type { adminorgsV1 } from '@policyhub/contracts';
import type { Handlers } from '@policyhub/grpc-runtime';
import type {
  AdminOrganizationUseCases,
  OrganizationSettingsChange,
} from '../use-cases/admin-organizations.js';
import { toOrganization } from './mappers.js';

/** A value given, else null when its clear flag is set, else undefined (unchanged). */
const setOrClear = <T>(value: T | undefined, clear: boolean): T | null | undefined =>
  value !== undefined ? value : clear ? null : undefined;

const settingsChange = (
  req: adminorgsV1.UpdateAdminOrganizationRequest__Output,
): OrganizationSettingsChange => ({
  accessBetaTools: req.accessBetaTools,
  globalModuleSharing: req.globalModuleSharing,
  globalProviderSharing: req.globalProviderSharing,
  isDisabled: req.isDisabled,
  workerSudoEnabled: req.workerSudoEnabled,
  applyTimeout: setOrClear(req.applyTimeout, req.clearApplyTimeout),
  planTimeout: setOrClear(req.planTimeout, req.clearPlanTimeout),
  workspaceLimit: setOrClear(req.workspaceLimit, req.clearWorkspaceLimit),
});

/** The site-admin organization API (use-cases/admin-organizations.ts). */
export function adminOrganizationHandlers(
  admin: AdminOrganizationUseCases,
): Handlers<adminorgsV1.AdminOrganizationsHandlers> {
  return {
    async ListAdminOrganizations(req, { principal }) {
      const search = {
        query: (req.query ?? '').trim(),
        name: (req.queryName ?? '').trim(),
        email: (req.queryEmail ?? '').trim(),
        moduleProducer: req.moduleProducer,
        providerProducer: req.providerProducer,
      };
      const res = await admin.list(principal, search, req.page);
      return {
        organizations: res.organizations.map((r) => toOrganization(r)),
        page: res.page,
        statusCounts: res.statusCounts,
      };
    },

    async GetAdminOrganization(req, { principal }) {
      return { organization: toOrganization(await admin.get(principal, req.name)) };
    },

    async UpdateAdminOrganization(req, { principal }) {
      return { organization: toOrganization(await admin.update(principal, req.name, settingsChange(req))) };
    },

    async DeleteAdminOrganization(req, { principal }) {
      await admin.delete(principal, req.name);
      return {};
    },

    async ListModuleConsumers(req, { principal }) {
      const res = await admin.listConsumers(principal, req.name, 'modules', req.page);
      return { organizations: res.organizations.map((r) => toOrganization(r)), page: res.page };
    },

    async ListProviderConsumers(req, { principal }) {
      const res = await admin.listConsumers(principal, req.name, 'providers', req.page);
      return { organizations: res.organizations.map((r) => toOrganization(r)), page: res.page };
    },

    async UpdateModuleConsumers(req, { principal }) {
      await admin.updateModuleConsumers(principal, req.name, req.consumers);
      return {};
    },

    async UpdateRegistryPartnerships(req, { principal }) {
      await admin.updatePartnerships(principal, req.name, {
        moduleConsumers: req.moduleConsumers?.names,
        providerConsumers: req.providerConsumers?.names,
      });
      return {};
    },
  };
}
