import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { implement } from '@policyhub/grpc-runtime';
import type { PolicySetsDeps } from './deps.js';
import { applicablePolicySetHandlers } from './rpc/applicable-policy-sets.js';
import { policyHandlers } from './rpc/policies.js';
import { policySetRelationshipHandlers } from './rpc/policy-set-relationships.js';
import { policySetVersionHandlers } from './rpc/policy-set-versions.js';
import { policySetHandlers } from './rpc/policy-sets.js';

/** Adds every policy-sets gRPC service to an unbound server (tests bind it on port 0). */
export function registerPolicySets(server: grpc.Server, deps: PolicySetsDeps): void {
  const v1 = contracts().policyhub.policysets.v1;
  const opts = { logger: deps.logger, isUnavailable: deps.isUnavailable, auth: deps.auth };
  server.addService(v1.Policies.service, implement(policyHandlers(deps), opts));
  server.addService(
    v1.PolicySets.service,
    implement({ ...policySetHandlers(deps), ...policySetRelationshipHandlers(deps) }, opts),
  );
  server.addService(v1.ApplicablePolicySets.service, implement(applicablePolicySetHandlers(deps), opts));
  server.addService(v1.PolicySetVersions.service, implement(policySetVersionHandlers(deps), opts));
}
