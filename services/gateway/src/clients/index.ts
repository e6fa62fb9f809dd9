import { contracts } from '@policyhub/contracts';
import { createClient } from '@policyhub/grpc-runtime';

export interface ServiceAddresses {
  adminOrgs: string;
  policySets: string;
  runs: string;
  storage: string;
}

/** One gRPC client per downstream service API; created once per gateway process. */
export function createClients(addresses: ServiceAddresses) {
  const pkg = contracts().policyhub;
  const clients = {
    identity: createClient(pkg.adminorgs.v1.Identity, addresses.adminOrgs),
    organizations: createClient(pkg.adminorgs.v1.Organizations, addresses.adminOrgs),
    teams: createClient(pkg.adminorgs.v1.Teams, addresses.adminOrgs),
    projects: createClient(pkg.adminorgs.v1.Projects, addresses.adminOrgs),
    workspaces: createClient(pkg.adminorgs.v1.Workspaces, addresses.adminOrgs),
    adminOrganizations: createClient(pkg.adminorgs.v1.AdminOrganizations, addresses.adminOrgs),
    policies: createClient(pkg.policysets.v1.Policies, addresses.policySets),
    policySets: createClient(pkg.policysets.v1.PolicySets, addresses.policySets),
    policySetVersions: createClient(pkg.policysets.v1.PolicySetVersions, addresses.policySets),
    storage: createClient(pkg.storage.v1.Storage, addresses.storage),
    runs: createClient(pkg.runs.v1.Runs, addresses.runs),
    comments: createClient(pkg.runs.v1.Comments, addresses.runs),
    policyChecks: createClient(pkg.runs.v1.PolicyChecks, addresses.runs),
  };
  return {
    ...clients,
    close() {
      for (const c of Object.values(clients)) c.close();
    },
  };
}

export type Clients = ReturnType<typeof createClients>;
