import { WIRE } from '../../vocabulary.js';

/** Canonical policy kinds (what services speak) → the wire spelling of the served profile. */
/** Maps, not objects: the wire value is user input (`constructor` must stay a string). */
const TO_WIRE = new Map<string, string>([
  ['kind_a', WIRE.policyKinds.kindA],
  ['kind_b', WIRE.policyKinds.kindB],
]);
const FROM_WIRE = new Map<string, string>([...TO_WIRE].map(([k, v]) => [v, k]));

export const wireKind = (canonical: string): string => TO_WIRE.get(canonical) ?? canonical;

/** Unknown spellings pass through unchanged, so the service rejects them with its own 422. */
export const canonicalKind = (wire: string): string => FROM_WIRE.get(wire) ?? wire;
