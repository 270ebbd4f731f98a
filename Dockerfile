# The Recall and Safety Alert Service: `recalls serve` on port 8080, its SQLite database and the raw
# archive in the /data volume. Any other command runs as `docker run IMAGE ingest`, `… keys create
# --plan starter`, `… migrate`. docs/containers.md says how to run it, and what of this file was
# verified without a container engine.

# Build: dependencies first, from package.json and package-lock.json alone (with the compilers the
# SQLite driver falls back to when no prebuilt binary fits), so that a change to the sources reuses
# that layer; `--ignore-scripts` keeps the project's `prepare` (the build) for after the sources are
# in, and `npm rebuild` runs the dependencies' own install scripts (the SQLite driver's binary).
# Then dist/, then the dev dependencies pruned.
FROM node:24-bookworm-slim AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && npm rebuild --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund \
  && npm cache clean --force
COPY samples ./samples

# Run: the built tree, owned by root and read-only to the service's user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  DATABASE_URL=/data/recalls.db \
  RECALLS_ARCHIVE_DIR=/data/archive
WORKDIR /app
COPY --from=build /app /app
RUN mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
# Ready when the admin listener (RECALLS_ADMIN_PORT, on 127.0.0.1 or 0.0.0.0) says /readyz; without
# one, when /v1/health answers 200 (no key, never rate limited). Commands other than serve have
# nothing to probe: compose.yaml turns the check off for them.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const admin = process.env.RECALLS_ADMIN_PORT; const url = admin ? 'http://127.0.0.1:' + admin + '/readyz' : 'http://127.0.0.1:' + (process.env.PORT || 8080) + '/v1/health'; fetch(url, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1));"]
ENTRYPOINT ["node", "/app/bin/recalls.js"]
CMD ["serve"]
