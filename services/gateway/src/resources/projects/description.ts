import type { RequestDocument } from '../../jsonapi/body.js';

/**
 * The `description` attribute of a project or workspace body: a string sets it; null or `""`
 * removes it (served as null); absent keeps it (`{}`).
 */
export function readDescription(doc: RequestDocument): { description?: string; clearDescription?: true } {
  const value = doc.nullableString('description');
  if (value === undefined) return {};
  if (value === null || value === '') return { clearDescription: true };
  return { description: value };
}
