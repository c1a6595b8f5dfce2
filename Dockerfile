# syntax=docker/dockerfile:1
#
# investment-api-fake: in-memory fake of the investment platform API.
#
#   docker build -t investment-api-fake .
#   docker run --rm -p 8080:8080 investment-api-fake
#
# Node 24 LTS. HOST=0.0.0.0: inside a container the fake must listen on every interface (the CLI's own default
# is 127.0.0.1); set CONTROL_TOKEN when the port is reachable by others.
#
# Stages:
#   build  - full install (dev dependencies included), compiles TypeScript to dist/
#   deps   - production-only node_modules
#   (final) - dist/ + production node_modules + package.json, runs as `node`
#
# `npm ci` runs with --ignore-scripts everywhere: no lifecycle script of ours is
# needed before the sources are copied; no production dependency has an install
# script (test/package checks it), and the development ones that do (esbuild's
# binary check, @scarf/scarf's telemetry under swagger-ui-dist, whose files the
# build copies into dist/) are not needed.
#
# The release workflow passes VERSION, REVISION and SOURCE for the OCI labels. VERSION's default is the package's
# version (test/unit/version.test.ts keeps them equal), so a local build is labelled as what it is.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json redocly.yaml .spectral.yaml ./
COPY scripts ./scripts
COPY fixtures ./fixtures
COPY src ./src
COPY console ./console
RUN npm run build && mkdir -p state

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24-bookworm-slim
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=https://github.com/investment-platform/investment-api-fake
LABEL org.opencontainers.image.title="investment-api-fake" \
      org.opencontainers.image.description="An in-memory fake of the investment platform API for partner CI pipelines, test suites and demos" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
# Application files stay owned by root: the runtime user can read them but not modify them.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/dist ./dist
# An empty folder the runtime user owns, for STATE_DIR=/state: a named volume mounted there takes its owner (the
# image keeps nothing on disk unless STATE_DIR is set).
COPY --from=build --chown=node:node /app/state /state
USER node
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/__control/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# Exec form: node is PID 1 and receives SIGTERM directly (it drains and exits 0).
CMD ["node", "dist/bundle/cli.js"]
