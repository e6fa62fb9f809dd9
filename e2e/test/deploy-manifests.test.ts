// Checks the deployment artefacts offline: docker-compose.yml, and the Kustomize base and overlays under
// deploy/k8s, rendered here without the kustomize binary and validated against the Kubernetes schemas.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { type IJob, Job } from 'kubernetes-models/batch/v1';
import { type INetworkPolicy, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { type IPodDisruptionBudget, PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  ConfigMap,
  type IConfigMap,
  type IContainer,
  type IPodSpec,
  type ISecret,
  type IService,
  Secret,
  Service,
} from 'kubernetes-models/v1';
import { isBalancedTarget, ROUND_ROBIN } from '@policyhub/grpc-runtime';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const k8sDir = join(repoRoot, 'deploy', 'k8s');

/** gRPC services and the gateway: a Deployment, a Service, an HPA each. */
const SERVERS = ['gateway', 'admin-orgs', 'policy-sets', 'runs', 'storage'] as const;
/** Every long-running process; the evaluator is a worker with no Service. */
const PROCESSES = [...SERVERS, 'evaluator'] as const;
/** Services that own a Postgres schema (and therefore a migration Job and a database role). */
const WITH_SCHEMA = ['admin-orgs', 'policy-sets', 'runs', 'storage'] as const;
const INFRASTRUCTURE = ['postgres', 'kafka', 'minio', 'redis', 'otel-collector', 'jaeger'] as const;
/** Keys of the shared `policyhub` ConfigMap, given to every process whether it reads them or not. */
const SHARED_CONFIG = 'policyhub';
/** The internal signing key, shared by the gateway and the services (never the evaluator). */
const SHARED_SECRET = 'policyhub-internal';
/** Who may reach each service's gRPC port: exactly the processes that call it (docs/security.md). */
const GRPC_CALLERS: Record<(typeof WITH_SCHEMA)[number], string[]> = {
  'admin-orgs': ['gateway', 'policy-sets', 'runs', 'storage'],
  'policy-sets': ['gateway', 'runs'],
  runs: ['gateway', 'evaluator'],
  storage: ['gateway', 'policy-sets', 'runs'],
};

// ---------------------------------------------------------------------------------------------------
// A small Kustomize renderer: only the features the manifests use, and an error for anything else, so
// an overlay can never rely on a field this test would silently ignore.

type Obj = Record<string, unknown>;
interface KObject extends Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
}
interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  replicas?: { name: string; count: number }[];
  patches?: { path?: string; patch?: string; target?: { kind?: string; name?: string } }[];
}
const SUPPORTED_FIELDS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'namespace',
  'images',
  'replicas',
  'patches',
]);
/** Strategic-merge keys of the lists the patches touch; any other list is replaced whole. */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
};

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseDocs(text: string, origin: string): KObject[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${origin}: ${doc.errors[0]?.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return [];
    if (!isObj(value) || typeof value.kind !== 'string' || !isObj(value.metadata)) {
      throw new Error(`${origin}: not a Kubernetes object`);
    }
    return [value as KObject];
  });
}

function strategicMerge(base: unknown, patch: unknown, field = ''): unknown {
  if (isObj(patch)) {
    if ('$patch' in patch) throw new Error(`unsupported $patch directive in ${field}`);
    const out: Obj = isObj(base) ? { ...base } : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete out[key];
      else out[key] = strategicMerge(out[key], value, key);
    }
    return out;
  }
  const mergeKey = MERGE_KEYS[field];
  if (Array.isArray(patch) && Array.isArray(base) && mergeKey) {
    const out = [...base];
    for (const item of patch) {
      const at = out.findIndex((b) => isObj(b) && isObj(item) && b[mergeKey] === item[mergeKey]);
      if (at >= 0) out[at] = strategicMerge(out[at], item);
      else out.push(item);
    }
    return out;
  }
  return patch;
}

function podSpecOf(o: KObject): IPodSpec | undefined {
  const spec = o.spec as { template?: { spec?: IPodSpec } } | undefined;
  return o.kind === 'Deployment' || o.kind === 'Job' ? spec?.template?.spec : undefined;
}

function render(dir: string): KObject[] {
  const k = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
  for (const field of Object.keys(k)) {
    if (!SUPPORTED_FIELDS.has(field))
      throw new Error(`${dir}: kustomization field "${field}" is not supported`);
  }
  let objects: KObject[] = [];
  for (const resource of k.resources ?? []) {
    const path = join(dir, resource);
    objects.push(
      ...(statSync(path).isDirectory() ? render(path) : parseDocs(readFileSync(path, 'utf8'), path)),
    );
  }
  for (const entry of k.patches ?? []) {
    const origin = entry.path ? join(dir, entry.path) : `${dir} inline patch`;
    const patches = parseDocs(
      entry.path ? readFileSync(join(dir, entry.path), 'utf8') : (entry.patch ?? ''),
      origin,
    );
    for (const patch of patches) {
      const target = entry.target ?? { kind: patch.kind, name: patch.metadata.name };
      const matches = objects.filter(
        (o) => (!target.kind || o.kind === target.kind) && (!target.name || o.metadata.name === target.name),
      );
      if (matches.length === 0)
        throw new Error(`${origin}: patch for ${target.kind}/${target.name} matches nothing`);
      const { $patch, ...body } = patch;
      if ($patch === 'delete') {
        objects = objects.filter((o) => !matches.includes(o));
      } else if ($patch === undefined) {
        objects = objects.map((o) => {
          if (!matches.includes(o)) return o;
          const merged = strategicMerge(o, body) as KObject;
          // A targeted patch applies to each match whatever name the patch itself carries.
          return { ...merged, metadata: { ...merged.metadata, name: o.metadata.name } };
        });
      } else {
        throw new Error(`${origin}: unsupported $patch: ${String($patch)}`);
      }
    }
  }
  for (const { name, count } of k.replicas ?? []) {
    const target = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name);
    if (!target) throw new Error(`${dir}: replicas for unknown Deployment ${name}`);
    target.spec = { ...(target.spec as Obj), replicas: count };
  }
  for (const image of k.images ?? []) {
    let used = false;
    for (const o of objects) {
      for (const c of [...(podSpecOf(o)?.containers ?? []), ...(podSpecOf(o)?.initContainers ?? [])]) {
        const [name, tag] = splitImage(c.image ?? '');
        if (name !== image.name) continue;
        const newTag = image.newTag ?? tag;
        c.image = newTag ? `${image.newName ?? name}:${newTag}` : (image.newName ?? name);
        used = true;
      }
    }
    if (!used) throw new Error(`${dir}: image ${image.name} is used by no container`);
  }
  if (k.namespace) for (const o of objects) o.metadata = { ...o.metadata, namespace: k.namespace };
  const ids = objects.map((o) => `${o.kind}/${o.metadata.name}`);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new Error(`${dir}: ${duplicate} is defined twice`);
  return structuredClone(objects);
}

function splitImage(image: string): [string, string | undefined] {
  const at = image.lastIndexOf(':');
  return at > image.lastIndexOf('/') ? [image.slice(0, at), image.slice(at + 1)] : [image, undefined];
}

// ---------------------------------------------------------------------------------------------------

type ModelClass = new (data: Obj) => { validate(): void };
const MODELS: Record<string, ModelClass> = {
  'apps/v1/Deployment': Deployment as unknown as ModelClass,
  'v1/Service': Service as unknown as ModelClass,
  'v1/ConfigMap': ConfigMap as unknown as ModelClass,
  'v1/Secret': Secret as unknown as ModelClass,
  'batch/v1/Job': Job as unknown as ModelClass,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler as unknown as ModelClass,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget as unknown as ModelClass,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy as unknown as ModelClass,
};

function find<T>(objects: KObject[], kind: string, name: string): T {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`missing ${kind}/${name}`);
  return found as unknown as T;
}
const all = <T>(objects: KObject[], kind: string): T[] =>
  objects.filter((o) => o.kind === kind) as unknown as T[];

function containerOf(objects: KObject[], kind: 'Deployment' | 'Job', name: string): IContainer {
  const owner = kind === 'Deployment' ? name : `${name}-migrate`;
  const spec = find<IDeployment | IJob>(objects, kind, owner).spec?.template.spec;
  const container = spec?.containers.find((c) => c.name === name);
  if (!container) throw new Error(`${kind}/${owner} has no container named ${name}`);
  return container;
}

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);

/**
 * Every variable a process gets in Kubernetes: its ConfigMaps, Secrets and literal env. A Secret that is
 * not rendered (production creates them out of band) contributes nothing.
 */
function kubernetesEnv(objects: KObject[], name: string): Map<string, string> {
  const container = containerOf(objects, 'Deployment', name);
  const env = new Map<string, string>();
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      for (const [k, v] of Object.entries(
        find<IConfigMap>(objects, 'ConfigMap', source.configMapRef.name ?? '').data ?? {},
      )) {
        env.set(k, v);
      }
    }
    const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === source.secretRef?.name);
    for (const [k, v] of Object.entries((secret as ISecret | undefined)?.stringData ?? {})) env.set(k, v);
  }
  for (const e of container.env ?? []) env.set(e.name, e.value ?? '');
  return env;
}

// ---------------------------------------------------------------------------------------------------

describe.each(['base', 'overlays/dev', 'overlays/production'])('deploy/k8s/%s', (variant) => {
  const objects = render(join(k8sDir, variant));

  it('renders only objects that validate against the Kubernetes schemas', () => {
    const problems: string[] = [];
    for (const o of objects) {
      const Model = MODELS[`${o.apiVersion}/${o.kind}`];
      if (!Model) {
        problems.push(`${o.apiVersion}/${o.kind} ${o.metadata.name}: no schema registered in this test`);
        continue;
      }
      try {
        new Model(o).validate();
      } catch (err) {
        problems.push(`${o.kind}/${o.metadata.name}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('renders every ConfigMap and, outside production, every Secret that a pod reads', () => {
    for (const o of objects) {
      for (const c of podSpecOf(o)?.containers ?? []) {
        for (const source of c.envFrom ?? []) {
          if (source.configMapRef) find(objects, 'ConfigMap', source.configMapRef.name ?? '');
          if (source.secretRef) {
            const rendered = objects.some(
              (s) => s.kind === 'Secret' && s.metadata.name === source.secretRef?.name,
            );
            expect(rendered, `${o.kind}/${o.metadata.name} reads Secret ${source.secretRef.name}`).toBe(
              variant !== 'overlays/production',
            );
          }
        }
      }
    }
  });

  it('names every object after the process it belongs to', () => {
    for (const o of objects) {
      if (o.kind === 'ConfigMap' && o.metadata.name === SHARED_CONFIG) continue;
      if (o.kind === 'Secret' && o.metadata.name === SHARED_SECRET) continue;
      const name = o.metadata.labels?.['app.kubernetes.io/name'];
      expect(PROCESSES, `${o.kind}/${o.metadata.name}`).toContain(name);
      expect([name, `${name}-migrate`], `${o.kind}/${o.metadata.name}`).toContain(o.metadata.name);
    }
  });

  it.each(PROCESSES)('runs %s as a Deployment with resources and a locked-down container', (name) => {
    const deployment = find<IDeployment>(objects, 'Deployment', name);
    const pod = deployment.spec?.template.spec;
    expect(selects(deployment.spec?.selector.matchLabels, deployment.spec?.template.metadata?.labels)).toBe(
      true,
    );
    const container = containerOf(objects, 'Deployment', name);
    expect(splitImage(container.image ?? '')[0]).toMatch(new RegExp(`(^|/)policyhub/${name}$`));

    for (const bound of ['requests', 'limits'] as const) {
      expect(container.resources?.[bound]?.cpu, bound).toBeDefined();
      expect(container.resources?.[bound]?.memory, bound).toBeDefined();
    }

    expect(pod?.securityContext?.runAsNonRoot).toBe(true);
    expect(pod?.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    // A read-only root filesystem leaves /tmp as the only writable place.
    expect(container.volumeMounts?.map((m) => m.mountPath)).toContain('/tmp');
    expect(kubernetesEnv(objects, name).get('OTEL_SERVICE_NAME')).toBe(name);
  });

  it.each(SERVERS)(
    'probes %s for readiness on /readyz of its ops port, and has Prometheus scrape that port',
    (name) => {
      const container = containerOf(objects, 'Deployment', name);
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'ops' });
      if (name === 'gateway') {
        for (const probe of [container.startupProbe, container.livenessProbe]) {
          expect(probe?.httpGet).toEqual({ path: '/healthz', port: 'ops' });
        }
      } else {
        // grpc.health.v1 on the serving port itself: a wedged gRPC server fails its liveness.
        const grpcPort = container.ports?.find((p) => p.name === 'grpc')?.containerPort;
        expect(kubernetesEnv(objects, name).get('GRPC_PORT')).toBe(String(grpcPort));
        for (const probe of [container.startupProbe, container.livenessProbe]) {
          expect(probe?.grpc).toEqual({ port: grpcPort, service: 'liveness' });
        }
      }
      const opsPort = String(container.ports?.find((p) => p.name === 'ops')?.containerPort);
      expect(kubernetesEnv(objects, name).get('OPS_PORT')).toBe(opsPort);
      const annotations = find<IDeployment>(objects, 'Deployment', name).spec?.template.metadata?.annotations;
      expect(annotations?.['prometheus.io/port']).toBe(opsPort);
      expect(annotations?.['prometheus.io/path']).toBe('/metrics');
    },
  );

  it("keeps the gateway's ops port (metrics, probes) out of its Service", () => {
    const env = kubernetesEnv(objects, 'gateway');
    expect(env.get('OPS_HOST')).toBe('0.0.0.0');
    const ports = find<IService>(objects, 'Service', 'gateway').spec?.ports ?? [];
    expect(ports.map((p) => p.targetPort)).toEqual(['http']);
    expect(ports.map((p) => String(p.port))).not.toContain(env.get('OPS_PORT'));
  });

  it('probes the evaluator worker on its ops server (OPS_PORT)', () => {
    const container = containerOf(objects, 'Deployment', 'evaluator');
    const ops = container.ports?.find((p) => p.name === 'ops')?.containerPort;
    expect(ops).toBe(9464);
    expect(kubernetesEnv(objects, 'evaluator').get('OPS_PORT')).toBe(String(ops));
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(container.startupProbe?.httpGet?.port).toBe('ops');
  });

  it.each(SERVERS)('exposes %s through a Service that selects only its serving pods', (name) => {
    const service = find<IService>(objects, 'Service', name);
    const deployment = find<IDeployment>(objects, 'Deployment', name);
    expect(selects(service.spec?.selector, deployment.spec?.template.metadata?.labels)).toBe(true);
    for (const job of all<IJob>(objects, 'Job')) {
      expect(selects(service.spec?.selector, job.spec?.template.metadata?.labels), job.metadata?.name).toBe(
        false,
      );
    }
    const portNames = (containerOf(objects, 'Deployment', name).ports ?? []).map((p) => p.name);
    for (const port of service.spec?.ports ?? []) expect(portNames).toContain(port.targetPort);
  });

  it.each(WITH_SCHEMA)('lets only the processes that call %s reach its gRPC port', (name) => {
    const policy = find<INetworkPolicy>(objects, 'NetworkPolicy', name);
    const deployment = find<IDeployment>(objects, 'Deployment', name);
    expect(selects(policy.spec?.podSelector?.matchLabels, deployment.spec?.template.metadata?.labels)).toBe(
      true,
    );
    const grpcRules = (policy.spec?.ingress ?? []).filter((rule) =>
      rule.ports?.some((p) => p.port === 'grpc'),
    );
    expect(grpcRules).toHaveLength(1);
    const peers = grpcRules[0]?.from ?? [];
    expect(peers).toHaveLength(1);
    const admitted = PROCESSES.filter((process) => {
      const labels = find<IDeployment>(objects, 'Deployment', process).spec?.template.metadata?.labels ?? {};
      const selector = peers[0]?.podSelector;
      return (
        selects(selector?.matchLabels, labels) &&
        (selector?.matchExpressions ?? []).every(
          (e) => e.operator === 'In' && (e.values ?? []).includes(labels[e.key] ?? ''),
        )
      );
    });
    expect(admitted.sort()).toEqual([...GRPC_CALLERS[name]].sort());
  });

  it('lets the evaluator reach runs and nothing else of PolicyHub', () => {
    const policy = find<INetworkPolicy>(objects, 'NetworkPolicy', 'evaluator');
    const deployment = find<IDeployment>(objects, 'Deployment', 'evaluator');
    expect(selects(policy.spec?.podSelector?.matchLabels, deployment.spec?.template.metadata?.labels)).toBe(
      true,
    );
    expect(policy.spec?.policyTypes).toEqual(['Egress']);
    const podTargets = (policy.spec?.egress ?? []).flatMap((rule) => rule.to ?? []);
    expect(podTargets).toEqual([
      {
        podSelector: {
          matchLabels: { 'app.kubernetes.io/name': 'runs', 'app.kubernetes.io/component': 'server' },
        },
      },
    ]);
  });

  it('gives the signing key to the gateway and the services, and the evaluator only its token', () => {
    const readsSecret = (name: string, secret: string) =>
      (containerOf(objects, 'Deployment', name).envFrom ?? []).some((s) => s.secretRef?.name === secret);
    for (const name of SERVERS) expect(readsSecret(name, SHARED_SECRET), name).toBe(true);
    expect(readsSecret('evaluator', SHARED_SECRET)).toBe(false);
    expect(readsSecret('evaluator', 'evaluator')).toBe(true);
    for (const name of WITH_SCHEMA) {
      const env = kubernetesEnv(objects, name);
      expect(env.get('GRPC_HOST'), name).toBe('0.0.0.0');
      expect(env.get('OPS_HOST'), name).toBe('0.0.0.0');
    }
    if (variant === 'overlays/dev') {
      expect(kubernetesEnv(objects, 'gateway').get('INTERNAL_SIGNING_KEYS')).toMatch(/^[\w-]+:.{32,}$/);
      const evaluatorToken = kubernetesEnv(objects, 'evaluator').get('EVALUATOR_TOKEN');
      expect(kubernetesEnv(objects, 'runs').get('EVALUATOR_TOKENS')?.split(',')).toContain(evaluatorToken);
    }
  });

  it.each(PROCESSES)('autoscales %s', (name) => {
    const hpa = find<IHorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler', name);
    expect(hpa.spec?.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', name });
    expect(hpa.spec?.minReplicas).toBeGreaterThanOrEqual(1);
    expect(hpa.spec?.maxReplicas).toBeGreaterThanOrEqual(hpa.spec?.minReplicas ?? 1);
  });

  it.each(WITH_SCHEMA)(
    "migrates %s's schema in a Job with the service's own image and credentials",
    (name) => {
      const job = containerOf(objects, 'Job', name);
      const server = containerOf(objects, 'Deployment', name);
      expect(job.image).toBe(server.image);
      expect(job.envFrom).toEqual(server.envFrom);
      expect(job.env).toContainEqual({ name: 'MIGRATE_ONLY', value: 'true' });
      expect(job.securityContext).toEqual(server.securityContext);
      expect(job.resources?.limits?.memory).toBeDefined();
      expect(find<IJob>(objects, 'Job', `${name}-migrate`).spec?.template.spec?.restartPolicy).toBe('Never');
    },
  );

  it.each(WITH_SCHEMA)(
    'serves %s through a headless Service, so callers resolve every pod and balance per call',
    (name) => {
      const service = find<IService>(objects, 'Service', name);
      expect(service.spec?.clusterIP).toBe('None');
      expect(service.spec?.ports?.find((p) => p.name === 'grpc')?.appProtocol).toBe('grpc');
      // What makes the headless name useful: a dns:/// target gets round_robin, per call over
      // the addresses (behaviour: packages/grpc-runtime/test/round-robin.test.ts).
      expect(JSON.parse(ROUND_ROBIN)).toEqual({ loadBalancingConfig: [{ round_robin: {} }] });
      expect(isBalancedTarget(`dns:///${name}:50051`)).toBe(true);
    },
  );

  it('points every service address at a Service port, through the DNS resolver (every pod address)', () => {
    for (const name of PROCESSES) {
      for (const [key, value] of kubernetesEnv(objects, name)) {
        if (!key.endsWith('_ADDR')) continue;
        expect(value, `${name} ${key}`).toMatch(/^dns:\/\/\/[a-z-]+:\d+$/);
        const [host, port] = value.slice('dns:///'.length).split(':');
        const service = find<IService>(objects, 'Service', host ?? '');
        expect(
          service.spec?.ports?.map((p) => String(p.port)),
          `${name} ${key}`,
        ).toContain(port);
      }
    }
  });

  if (variant === 'overlays/dev') {
    it('deploys one replica of the dev images in policyhub-dev', () => {
      for (const o of objects) expect(o.metadata.namespace).toBe('policyhub-dev');
      for (const name of PROCESSES) {
        expect(find<IDeployment>(objects, 'Deployment', name).spec?.replicas).toBe(1);
        expect(containerOf(objects, 'Deployment', name).image).toBe(`policyhub/${name}:dev`);
      }
    });

    it('uses the docker-compose database credentials', () => {
      const compose = readCompose();
      for (const name of WITH_SCHEMA) {
        expect(kubernetesEnv(objects, name).get('DATABASE_URL')).toBe(
          compose.services[name]?.environment?.DATABASE_URL,
        );
      }
    });
  }

  if (variant === 'overlays/production') {
    it('ships no Secret and no placeholder value', () => {
      expect(all(objects, 'Secret')).toEqual([]);
      expect(JSON.stringify(objects)).not.toContain('CHANGE_ME');
    });

    it('pins registry images, runs several replicas and bounds disruptions', () => {
      for (const o of objects) expect(o.metadata.namespace).toBe('policyhub');
      for (const name of PROCESSES) {
        const deployment = find<IDeployment>(objects, 'Deployment', name);
        const [image, tag] = splitImage(containerOf(objects, 'Deployment', name).image ?? '');
        expect(image).toBe(`registry.example.com/policyhub/${name}`);
        expect(tag).toMatch(/^\d+\.\d+\.\d+/);
        expect(deployment.spec?.replicas).toBeGreaterThanOrEqual(2);
        const pdb = find<IPodDisruptionBudget>(objects, 'PodDisruptionBudget', name);
        expect(selects(pdb.spec?.selector?.matchLabels, deployment.spec?.template.metadata?.labels)).toBe(
          true,
        );
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------------

interface ComposeService {
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition?: string }>;
  volumes?: string[];
}
interface ComposeFile {
  services: Record<string, ComposeService>;
}

function readCompose(): ComposeFile {
  // Compose files use YAML merge keys (<<: *anchor); compose itself resolves ${VAR:-default}, done below.
  const text = readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8').replace(
    /\$\{[A-Z0-9_]+:-([^}]*)\}/g,
    '$1',
  );
  return parse(text, { merge: true }) as ComposeFile;
}

describe('docker-compose.yml', () => {
  const compose = readCompose();
  const services = compose.services;

  it('runs every process and the infrastructure it needs', () => {
    expect(Object.keys(services).sort()).toEqual([...PROCESSES, ...INFRASTRUCTURE].sort());
  });

  it.each(PROCESSES)('builds %s from the root Dockerfile with its service as build argument', (name) => {
    const service = services[name];
    expect(service?.build).toMatchObject({
      context: '.',
      dockerfile: 'Dockerfile',
      args: { SERVICE: name },
    });
    expect(service?.environment?.OTEL_SERVICE_NAME).toBe(name);
    statSync(join(repoRoot, 'services', name, 'package.json'));
  });

  it('gives every container a healthcheck where one can run, and waits for healthy dependencies', () => {
    const hasHealthcheck = (name: string) => (services[name]?.healthcheck?.test?.length ?? 0) > 0;
    for (const [name, service] of Object.entries(services)) {
      // The collector image is distroless: no shell or HTTP client to run a check with.
      if (name !== 'otel-collector') expect(hasHealthcheck(name), name).toBe(true);
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(Object.keys(services), `${name} -> ${dependency}`).toContain(dependency);
        expect(condition, `${name} -> ${dependency}`).toBe(
          hasHealthcheck(dependency) ? 'service_healthy' : 'service_started',
        );
      }
    }
  });

  it('builds images whose own healthcheck asks the ops port, the gateway included', () => {
    const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
    const healthcheck = dockerfile.slice(dockerfile.indexOf('HEALTHCHECK')).split('\n').slice(0, 2).join(' ');
    expect(healthcheck).toContain("process.env.OPS_PORT+'/healthz'");
    expect(dockerfile).toMatch(/^\s+OPS_PORT=9464$/m);
  });

  it.each(SERVERS)("checks %s's readiness on its ops port", (name) => {
    const env = services[name]?.environment ?? {};
    expect(services[name]?.healthcheck?.test?.join(' ')).toContain(`http://127.0.0.1:${env.OPS_PORT}/readyz`);
  });

  it.each(WITH_SCHEMA)(
    'connects %s as its own role to its own schema, as postgres-init.sql creates them',
    (name) => {
      const initSql = readFileSync(join(repoRoot, 'deploy', 'local', 'postgres-init.sql'), 'utf8');
      const url = new URL(services[name]?.environment?.DATABASE_URL ?? '');
      const role = name.replace(/-/g, '_');
      expect(url.username).toBe(role);
      expect(initSql).toContain(`CREATE ROLE ${role} LOGIN PASSWORD '${url.password}';`);
      expect(initSql).toContain(`CREATE SCHEMA ${role} AUTHORIZATION ${role};`);
      expect(url.pathname).toBe('/policyhub');
    },
  );

  it.each(PROCESSES)('sets the same variables for %s as the Kubernetes base', (name) => {
    const objects = render(join(k8sDir, 'base'));
    const shared = Object.keys(find<IConfigMap>(objects, 'ConfigMap', SHARED_CONFIG).data ?? {});
    const inKubernetes = [...kubernetesEnv(objects, name).keys()];
    const inCompose = Object.keys(services[name]?.environment ?? {});
    expect(inKubernetes).toEqual(expect.arrayContaining(inCompose));
    expect(inCompose).toEqual(expect.arrayContaining(inKubernetes.filter((k) => !shared.includes(k))));
  });

  it("starts every process with its image's own command, as Kubernetes does", () => {
    const objects = render(join(k8sDir, 'base'));
    for (const name of PROCESSES) {
      expect(services[name]?.command, name).toBeUndefined();
      expect(containerOf(objects, 'Deployment', name).command, name).toBeUndefined();
    }
  });

  it('shares the signing key among the servers only, and gives the evaluator a token runs accepts', () => {
    const compose = readCompose();
    const key = compose.services.gateway?.environment?.INTERNAL_SIGNING_KEYS;
    expect(key).toMatch(/^[\w-]+:.{32,}$/);
    for (const name of SERVERS)
      expect(compose.services[name]?.environment?.INTERNAL_SIGNING_KEYS, name).toBe(key);
    const evaluator = compose.services.evaluator?.environment ?? {};
    expect(evaluator.INTERNAL_SIGNING_KEYS).toBeUndefined();
    expect(compose.services.runs?.environment?.EVALUATOR_TOKENS?.split(',')).toContain(
      evaluator.EVALUATOR_TOKEN,
    );
    for (const name of WITH_SCHEMA)
      expect(compose.services[name]?.environment?.GRPC_HOST, name).toBe('0.0.0.0');
  });

  it('points every service address at a compose service', () => {
    for (const name of PROCESSES) {
      for (const [key, value] of Object.entries(services[name]?.environment ?? {})) {
        if (key.endsWith('_ADDR')) expect(PROCESSES, `${name} ${key}`).toContain(value.split(':')[0]);
      }
    }
  });

  it('wires the collector to the trace UI with a configuration whose pipeline uses only defined components', () => {
    const mount = services['otel-collector']?.volumes?.find((v) => v.includes('otel-collector.yaml')) ?? '';
    const config = parse(readFileSync(join(repoRoot, mount.split(':')[0] ?? ''), 'utf8')) as {
      receivers: Obj;
      processors: Obj;
      exporters: Record<string, { endpoint?: string }>;
      extensions: Obj;
      service: { extensions: string[]; pipelines: Record<string, Record<string, string[]>> };
    };
    for (const pipeline of Object.values(config.service.pipelines)) {
      for (const section of ['receivers', 'processors', 'exporters'] as const) {
        for (const component of pipeline[section] ?? [])
          expect(Object.keys(config[section])).toContain(component);
      }
    }
    for (const extension of config.service.extensions)
      expect(Object.keys(config.extensions)).toContain(extension);
    expect(Object.values(config.exporters).map((e) => e.endpoint)).toContain('jaeger:4317');
    for (const name of PROCESSES) {
      expect(services[name]?.environment?.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector:4318');
    }
  });
});
