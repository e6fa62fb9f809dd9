import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { implement } from '@policyhub/grpc-runtime';
import type { ServiceDeps } from '@policyhub/service-kit';
import type { Deps } from './deps.js';
import { applicablePolicySetHandlers } from './rpc/applicable-policy-sets.js';
import { policyHandlers } from './rpc/policies.js';
import { policySetRelationshipHandlers } from './rpc/policy-set-relationships.js';
import { policySetParameterHandlers } from './rpc/policy-set-parameters.js';
import { policySetVersionHandlers } from './rpc/policy-set-versions.js';
import { policySetHandlers } from './rpc/policy-sets.js';
import { ApplicablePolicySetUseCases } from './use-cases/applicable-policy-sets.js';
import { PolicyUseCases } from './use-cases/policies.js';
import { PolicySetRelationshipUseCases } from './use-cases/policy-set-relationships.js';
import { PolicySetParameterUseCases } from './use-cases/policy-set-parameters.js';
import { PolicySetVersionUseCases } from './use-cases/policy-set-versions.js';
import { PolicySetUseCases } from './use-cases/policy-sets.js';

/** Adds every policy-sets gRPC service to an unbound server (tests bind it on port 0). */
export function registerPolicySets(server: grpc.Server, service: ServiceDeps, deps: Deps): void {
  const v1 = contracts().policyhub.policysets.v1;
  const opts = { logger: service.logger, isUnavailable: service.isUnavailable, auth: service.auth };
  server.addService(v1.Policies.service, implement(policyHandlers(new PolicyUseCases(deps)), opts));
  server.addService(
    v1.PolicySets.service,
    implement(
      {
        ...policySetHandlers(new PolicySetUseCases(deps)),
        ...policySetRelationshipHandlers(new PolicySetRelationshipUseCases(deps)),
      },
      opts,
    ),
  );
  server.addService(
    v1.ApplicablePolicySets.service,
    implement(applicablePolicySetHandlers(new ApplicablePolicySetUseCases(deps)), opts),
  );
  server.addService(
    v1.PolicySetParameters.service,
    implement(policySetParameterHandlers(new PolicySetParameterUseCases(deps)), opts),
  );
  server.addService(
    v1.PolicySetVersions.service,
    implement(policySetVersionHandlers(new PolicySetVersionUseCases(deps), deps.uploadTokens), opts),
  );
}
