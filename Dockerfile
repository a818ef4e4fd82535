# One image for every service: docker build --build-arg SERVICE=<journal|gate|panel|critic-runner|synthesizer|implementer|console> .
# docker-compose.yml builds it once per service. Built without SERVICE it is the review tool:
#   docker build -t rloop . && docker run --rm -v "$PWD:/src:ro" rloop        # runs `rloop review /src`
# Node 24 (LTS until 2028-04): Node 20, which the
# development machine runs, reached end of life on 2026-04-30.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json nx.json tsconfig.json tsconfig.base.json ./
COPY libs libs
COPY services services
COPY apps apps
COPY bench bench
COPY config config
COPY examples examples
COPY schemas schemas
COPY scripts scripts
# npm ci runs the root prepare script, which compiles every project (tsc -b).
RUN npm ci --no-audit --no-fund

FROM node:24-bookworm-slim
# git: the gate resolves refs, critics read pinned commits, the implementer commits on rloop/<slug>.
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates && rm -rf /var/lib/apt/lists/*
# A mounted checkout belongs to another user; git must still read it (rloop review /src --base …).
RUN git config --system --add safe.directory /src
WORKDIR /app
COPY --from=build /app /app
ARG SERVICE
ENV SERVICE=${SERVICE} NODE_ENV=production RLOOP_HOME=/data
RUN mkdir -p /data && chown node:node /data
USER node
ENTRYPOINT ["/app/scripts/container-entrypoint.sh"]
CMD ["review", "/src"]
