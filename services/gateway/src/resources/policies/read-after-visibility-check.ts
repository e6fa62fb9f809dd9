/**
 * Reads a request body; when it is malformed, the target is looked up first so that a missing
 * or hidden one still answers 404 rather than 422 (the happy path costs no extra call).
 */
export async function readAfterVisibilityCheck<T>(
  read: () => T,
  ensureVisible: () => Promise<unknown>,
): Promise<T> {
  try {
    return read();
  } catch (err) {
    await ensureVisible();
    throw err;
  }
}
