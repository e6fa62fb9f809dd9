import { getContainerRuntimeClient } from 'testcontainers';

/**
 * Whether a container engine is reachable. testcontainers 11 fails fast ("Could not find a working
 * container runtime strategy") where none exists; the suite then skips and says why.
 */
export async function containerRuntime(): Promise<
  { available: true } | { available: false; reason: string }
> {
  try {
    await getContainerRuntimeClient();
    return { available: true };
  } catch (err) {
    return { available: false, reason: (err as Error).message };
  }
}
