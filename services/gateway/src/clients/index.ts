import { contracts } from '@policyhub/contracts';
import { type ClientCredential, createClient } from '@policyhub/grpc-runtime';

export interface ServiceAddresses {
  adminOrgs: string;
  policySets: string;
  runs: string;
  storage: string;
}

/** One gRPC client per downstream service API; created once per gateway process. */
/** `credential`: the gateway's signer (its InternalAuth), which also signs callers' principals. */
export function createClients(addresses: ServiceAddresses, credential: ClientCredential) {
  const pkg = contracts().policyhub;
  const clients = {
    identity: createClient(pkg.adminorgs.v1.Identity, addresses.adminOrgs, credential),
    organizations: createClient(pkg.adminorgs.v1.Organizations, addresses.adminOrgs, credential),
    teams: createClient(pkg.adminorgs.v1.Teams, addresses.adminOrgs, credential),
    projects: createClient(pkg.adminorgs.v1.Projects, addresses.adminOrgs, credential),
    workspaces: createClient(pkg.adminorgs.v1.Workspaces, addresses.adminOrgs, credential),
    adminOrganizations: createClient(pkg.adminorgs.v1.AdminOrganizations, addresses.adminOrgs, credential),
    auditTrail: createClient(pkg.adminorgs.v1.AuditTrail, addresses.adminOrgs, credential),
    policies: createClient(pkg.policysets.v1.Policies, addresses.policySets, credential),
    policySets: createClient(pkg.policysets.v1.PolicySets, addresses.policySets, credential),
    policySetVersions: createClient(pkg.policysets.v1.PolicySetVersions, addresses.policySets, credential),
    policySetParameters: createClient(
      pkg.policysets.v1.PolicySetParameters,
      addresses.policySets,
      credential,
    ),
    storage: createClient(pkg.storage.v1.Storage, addresses.storage, credential),
    runs: createClient(pkg.runs.v1.Runs, addresses.runs, credential),
    comments: createClient(pkg.runs.v1.Comments, addresses.runs, credential),
    policyChecks: createClient(pkg.runs.v1.PolicyChecks, addresses.runs, credential),
    taskStages: createClient(pkg.runs.v1.TaskStages, addresses.runs, credential),
    configurationVersions: createClient(pkg.runs.v1.ConfigurationVersions, addresses.runs, credential),
    plans: createClient(pkg.runs.v1.Plans, addresses.runs, credential),
  };
  return {
    ...clients,
    close() {
      for (const c of Object.values(clients)) c.close();
    },
  };
}

export type Clients = ReturnType<typeof createClients>;
