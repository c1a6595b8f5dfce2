# syntax=docker/dockerfile:1
#
# investment-api-fake: in-memory fake of the investment platform API.
#
#   docker build -t investment-api-fake .
#   docker run --rm -p 8080:8080 investment-api-fake
#
# Stages:
#   build  - full install (dev dependencies included), compiles TypeScript to dist/
#   deps   - production-only node_modules
#   (final) - dist/ + production node_modules + package.json, runs as `node`
#
# `npm ci` runs with --ignore-scripts everywhere: the package's `prepare` script
# would otherwise try to build before the sources are copied (and would need
# dev dependencies in the deps stage). The only dependency install script in
# the lockfile is @scarf/scarf's telemetry, which is not needed.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY fixtures ./fixtures
COPY src ./src
COPY console ./console
RUN npm run build

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim
LABEL org.opencontainers.image.title="investment-api-fake" \
      org.opencontainers.image.description="An in-memory fake of the investment platform API for partner CI pipelines, test suites and demos" \
      org.opencontainers.image.source="https://example.invalid/investment-api-fake"
ENV NODE_ENV=production PORT=8080
WORKDIR /app
# Application files stay owned by root: the runtime user can read them but not modify them.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/__control/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# Exec form: node is PID 1 and receives SIGTERM directly (it drains and exits 0).
CMD ["node", "dist/src/cli.js"]
