import { principalOf } from '@policyhub/permissions';
import { type ClientCredential, generateSigningKeys, InternalAuth } from '../../src/internal-auth.js';

/**
 * The callers the in-process tests use against a service named `service`: a user principal, the
 * deployment's keys with the service's own InternalAuth, the gateway's credential (which carries
 * the in-process handle), the same assertion without that handle (always over gRPC), and a
 * gateway credential signed with another deployment's keys.
 */
export function inProcessCallers(service: string) {
  const keys = generateSigningKeys();
  const gateway = new InternalAuth({ keys, service: 'gateway' }).credential;
  const overGrpc: ClientCredential = { apply: (m, p) => gateway.apply(m, p) };
  return {
    alice: principalOf({ userId: 'user-alice', username: 'alice', isSiteAdmin: false }, [
      ['acme', ['read-runs']],
    ]),
    keys,
    serverAuth: new InternalAuth({ keys, service }),
    gateway,
    overGrpc,
    foreign: new InternalAuth({ keys: generateSigningKeys(), service: 'gateway' }).credential,
  };
}
