# syntax=docker/dockerfile:1
#
# One image for all five processes; the command picks the service:
#   docker run --rm training-sandbox node services/identity/dist/main.js
# (the default command runs the gateway). Runs as UID/GID 10001, needs no
# writable path (works with a read-only root filesystem), holds no secrets:
# keys and store URLs come from the environment at run time.

# The Active LTS line (Node 20 is past its end of life).
ARG NODE_IMAGE=node:24-bookworm-slim

# Every workspace's package.json, for `npm ci` to install against the lockfile
# before any source is copied (so a source change does not redo the install).
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/runtime/package.json packages/runtime/
COPY packages/launcher/package.json packages/launcher/
COPY services/identity/package.json services/identity/
COPY services/oauth/package.json services/oauth/
COPY services/data/package.json services/data/
COPY services/playground/package.json services/playground/
COPY services/gateway/package.json services/gateway/

# Behind a TLS-inspecting proxy, the registry's certificate is signed by the
# proxy's CA: give it as a build secret (never a layer), e.g.
#   docker build --secret id=extra_ca,src=/etc/ssl/certs/ca-certificates.crt .
# (`npm run image` passes the machine's bundle). Without it, nothing changes.

# All dependencies, then the build (`buf generate` with ts-proto, then tsc -b).
# --ignore-scripts: no dependency runs install scripts (the test-only native
# modules would try to compile); the project's own `prepare` (= npm run build)
# is run explicitly once the sources are in.
FROM manifests AS build
RUN --mount=type=secret,id=extra_ca \
    if [ -f /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi \
    && npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY proto/ proto/
COPY packages/ packages/
COPY services/ services/
# The guides (docs/*.md), which `npm run build` renders into the gateway's
# dist/guides (served at /guides/); they reach the runtime stage with the rest
# of services/gateway/dist.
COPY docs/ docs/
RUN npm run build

# Production dependencies only; workspace packages are linked, not copied.
FROM manifests AS prod-deps
RUN --mount=type=secret,id=extra_ca \
    if [ -f /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi \
    && npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# npm, npx, corepack and yarn are not needed to run node; fewer tools, fewer CVEs.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg \
  && groupadd --system --gid 10001 sandbox \
  && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin sandbox \
  && install -d -o 10001 -g 10001 -m 0700 /run/sandbox-keys
# /run/sandbox-keys is where docker compose mounts the keys volume: an empty
# named volume takes the owner and mode of the image's directory, so the keys
# service (UID 10001, read-only root) can write there and nobody else can read.
# NODE_OPTIONS: the V8 options every service runs with, the same as `npm
# start` gives them (packages/launcher/src/node-options.ts says why; a test
# keeps the two the same). The chart and docker compose inherit it.
ENV NODE_ENV=production NODE_OPTIONS="--max-semi-space-size=8 --max-old-space-size=192"
WORKDIR /app
# Owned by root and not writable by the service user: the image cannot be changed from inside.
COPY --from=prod-deps /app/ ./
COPY --from=build /app/packages/contracts/dist/ packages/contracts/dist/
COPY --from=build /app/packages/runtime/dist/ packages/runtime/dist/
COPY --from=build /app/packages/launcher/dist/ packages/launcher/dist/
COPY --from=build /app/services/identity/dist/ services/identity/dist/
COPY --from=build /app/services/oauth/dist/ services/oauth/dist/
COPY --from=build /app/services/data/dist/ services/data/dist/
COPY --from=build /app/services/playground/dist/ services/playground/dist/
COPY --from=build /app/services/gateway/dist/ services/gateway/dist/
# Scripts run with plain `node`: docker compose's healthcheck (Kubernetes
# probes need none) and keys service, and the smoke test `helm test` runs.
COPY deploy/docker/*.cjs deploy/docker/
# The operators' CLI, `sandbox-admin <command>` (docs/operators.md): `npm run
# admin` in a checkout, but npm is not in this image.
COPY --chmod=0755 deploy/docker/sandbox-admin /usr/local/bin/sandbox-admin
# Numeric, so Kubernetes can verify runAsNonRoot without reading /etc/passwd.
USER 10001:10001
EXPOSE 8080 50051 50052 50053 50054
# --initial-old-space-size: a V8 option node refuses in NODE_OPTIONS, so it
# is on the command line, here and in the chart's and compose's commands
# (SERVICE_NODE_ARGS in packages/launcher/src/node-options.ts says why).
CMD ["node", "--initial-old-space-size=64", "services/gateway/dist/main.js"]
