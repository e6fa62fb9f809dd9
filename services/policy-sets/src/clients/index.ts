import { contracts } from '@policyhub/contracts';
import { type ClientCredential, createClient } from '@policyhub/grpc-runtime';

export interface PolicySetsAddresses {
  adminOrgs: string;
  storage: string;
}

/** gRPC clients of the services policy-sets depends on; created once per process. */
export function createPolicySetsClients(addresses: PolicySetsAddresses, credential: ClientCredential) {
  const pkg = contracts().policyhub;
  const clients = {
    organizations: createClient(pkg.adminorgs.v1.Organizations, addresses.adminOrgs, credential),
    workspaces: createClient(pkg.adminorgs.v1.Workspaces, addresses.adminOrgs, credential),
    projects: createClient(pkg.adminorgs.v1.Projects, addresses.adminOrgs, credential),
    storage: createClient(pkg.storage.v1.Storage, addresses.storage, credential),
  };
  return {
    ...clients,
    close() {
      for (const c of Object.values(clients)) c.close();
    },
  };
}

export type PolicySetsClients = ReturnType<typeof createPolicySetsClients>;
