import { WIRE } from '../../vocabulary.js';

/** Canonical policy kinds (what services speak) → the wire spelling of the served profile. */
const TO_WIRE: Record<string, string> = { kind_a: WIRE.policyKinds.kindA, kind_b: WIRE.policyKinds.kindB };
const FROM_WIRE: Record<string, string> = Object.fromEntries(Object.entries(TO_WIRE).map(([k, v]) => [v, k]));

export const wireKind = (canonical: string): string => TO_WIRE[canonical] ?? canonical;

/** Unknown spellings pass through unchanged, so the service rejects them with its own 422. */
export const canonicalKind = (wire: string): string => FROM_WIRE[wire] ?? wire;
