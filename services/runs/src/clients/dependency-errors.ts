import { unavailable } from '@policyhub/errors';
import { readServiceError, rethrowAsAppError } from '@policyhub/grpc-runtime';

/**
 * A failed call to another service: its domain errors pass through as ours; anything else
 * (unreachable, timed out, not deployed) is a retryable 503, never a 500.
 */
export function dependencyFailure(service: string, err: unknown): never {
  if (readServiceError(err).items.length > 0) rethrowAsAppError(err);
  throw unavailable('RUNS_DEPENDENCY_UNAVAILABLE', `${service} is unavailable; try again shortly`);
}
