import type { FastifyInstance } from 'fastify';
import type { ResourceObject } from '../jsonapi/document.js';
import type { ResourceDefinition } from '../schemas/resources.js';
import { CANONICAL, VOCABULARY, type VocabularyProfile, type WireNames, wireKind } from '../vocabulary.js';

/**
 * The served vocabulary profile at the edge. Serializers emit the canonical (spec) names; in any
 * other profile every response document — primary data, `included` and errors — is rewritten here,
 * once, so create, show, list and included stay identical to one another and no
 * endpoint can forget the profile. What differs in a resource's attributes is read off its
 * definition (`wording` of its fields, `schemas/resources.ts`).
 */
export function registerVocabulary(
  app: FastifyInstance,
  profile: VocabularyProfile,
  definitions: readonly ResourceDefinition[],
): void {
  const names = VOCABULARY[profile];
  if (names === CANONICAL) return;
  const translators = translatorsOf(definitions, names);
  app.addHook('preSerialization', async (_request, _reply, payload) =>
    translateDocument(payload, names, translators),
  );
}

type AttributeTranslator = (attributes: Record<string, unknown>) => Record<string, unknown>;

/** Each resource type's attribute translator in the profile `names`, where one differs. */
function translatorsOf(definitions: readonly ResourceDefinition[], names: WireNames) {
  const translators = new Map<string, AttributeTranslator>();
  for (const definition of definitions) {
    const translate = definition.translator(names);
    if (!translate) continue;
    // Two definitions of one type (organizations: the member's and the admin's view) share the
    // type's documents; only one of them may word attributes differently.
    if (translators.has(definition.type)) throw new Error(`two translations of ${definition.type}`);
    translators.set(definition.type, translate);
  }
  return translators;
}

/** A response document (single, list, or errors) in the names of `names`; other payloads unchanged. */
function translateDocument(
  payload: unknown,
  names: WireNames,
  translators: ReadonlyMap<string, AttributeTranslator>,
): unknown {
  if (!isRecord(payload)) return payload;
  const out: Record<string, unknown> = { ...payload };
  const translate = (r: unknown) => translateResource(r, translators);
  if (Array.isArray(payload.data)) out.data = payload.data.map(translate);
  else if (isRecord(payload.data)) out.data = translate(payload.data);
  if (Array.isArray(payload.included)) out.included = payload.included.map(translate);
  if (Array.isArray(payload.errors)) out.errors = payload.errors.map((e) => translateError(e, names));
  return out;
}

function translateResource(
  resource: unknown,
  translators: ReadonlyMap<string, AttributeTranslator>,
): unknown {
  if (!isRecord(resource) || !isRecord(resource.attributes)) return resource;
  const translate = translators.get(String(resource.type));
  if (!translate) return resource;
  return { ...resource, attributes: translate(resource.attributes) } satisfies Partial<ResourceObject>;
}

/**
 * Error details that name a kind (`Kind must be kind_a or kind_b`, `Query can't be blank for
 * kind_b policies`, …) speak the profile's names. Only details about the request document or the
 * `filter[kind]` parameter: those never echo free text such as an `include` value.
 */
function translateError(error: unknown, names: WireNames): unknown {
  if (!isRecord(error) || typeof error.detail !== 'string' || !isRecord(error.source)) return error;
  const { pointer, parameter } = error.source;
  const aboutDocument = typeof pointer === 'string' && pointer.startsWith('/data/');
  if (!aboutDocument && parameter !== 'filter[kind]') return error;
  const detail = error.detail.replace(/\bkind_[ab]\b/g, (k) => wireKind(k, names));
  return { ...error, detail };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A policy check's text report: the standard report's first line names the framework
 * (`kind_a Result: true`); in another profile it names it as that profile does (`Sentinel Result:
 * true`, as upstream's logs read). Reports an engine wrote itself are served as written.
 */
export function translateReport(report: string, names: WireNames): string {
  const canonical = `${CANONICAL.policyCheckReportFramework} Result: `;
  if (names === CANONICAL || !report.startsWith(canonical)) return report;
  return `${names.policyCheckReportFramework} Result: ${report.slice(canonical.length)}`;
}
