import type * as grpc from '@grpc/grpc-js';
import type { runsV1 } from '@policyhub/contracts';
import {
  callerPrincipal,
  type Handlers,
  type ImplementOptions,
  type UploadTokens,
  serveStream,
  streaming,
} from '@policyhub/grpc-runtime';
import type { ConfigurationVersionUseCases } from '../use-cases/configuration-versions.js';
import { toConfigurationVersion } from './mappers.js';

type Options = ImplementOptions;

export function configurationVersionHandlers(
  versions: ConfigurationVersionUseCases,
  uploadTokens: UploadTokens,
  options: Options,
): Handlers<runsV1.ConfigurationVersionsHandlers> {
  return {
    async CreateConfigurationVersion(req, { principal }) {
      const version = await versions.create(principal, {
        workspaceId: req.workspaceId,
        autoQueueRuns: req.autoQueueRuns,
        speculative: req.speculative,
        provisional: req.provisional,
      });
      return { configurationVersion: toConfigurationVersion(version, principal, uploadTokens) };
    },
    async GetConfigurationVersion(req, { principal }) {
      return {
        configurationVersion: toConfigurationVersion(
          await versions.get(principal, req.id),
          principal,
          uploadTokens,
        ),
      };
    },
    async ListWorkspaceConfigurationVersions(req, { principal }) {
      const res = await versions.listByWorkspace(principal, req.workspaceId, req.page);
      const now = new Date();
      return {
        configurationVersions: res.versions.map((v) =>
          toConfigurationVersion(v, principal, uploadTokens, now),
        ),
        page: res.page,
      };
    },
    DownloadConfigurationVersion: streaming(
      (
        call: grpc.ServerWritableStream<
          runsV1.DownloadConfigurationVersionRequest__Output,
          runsV1.DownloadConfigurationVersionResponse
        >,
      ) =>
        serveStream(call, 'DownloadConfigurationVersion', options, () =>
          versions.openArchive(callerPrincipal(call, options), call.request.id),
        ),
    ),
  };
}
