import type * as grpc from '@grpc/grpc-js';
import { contracts } from '@policyhub/contracts';
import { notFound } from '@policyhub/errors';
import { bindServer, createGrpcServer, implement, shutdownServer } from '@policyhub/grpc-runtime';
import { testAuth } from '@policyhub/testing';

/**
 * Stands in for admin-orgs in storage's component tests (a service never imports another
 * service's code): GetOrganization answers from `organizations` as it is at call time; an
 * organization not listed there is enabled. Every call it receives is counted.
 */
export async function startFakeAdminOrgs(
  organizations: Map<string, 'disabled' | 'missing'>,
  /** The id each name has now (none listed: the answer carries no id). */
  organizationIds: Map<string, string> = new Map(),
) {
  const v1 = contracts().policyhub.adminorgs.v1;
  const server: grpc.Server = createGrpcServer();
  const calls: string[] = [];
  server.addService(
    v1.Organizations.service,
    implement(
      {
        GetOrganization: async (req: { name: string }) => {
          calls.push(req.name);
          const status = organizations.get(req.name);
          if (status === 'missing') throw notFound();
          return {
            organization: {
              name: req.name,
              externalId: organizationIds.get(req.name) ?? '',
              isDisabled: status === 'disabled',
            },
          };
        },
      } as never,
      { logger: { error: () => {} }, auth: testAuth('admin-orgs') },
    ),
  );
  const address = await bindServer(server, '127.0.0.1:0');
  return { address, calls, close: () => shutdownServer(server) };
}
