# hourbook as a container image: docker build -t hourbook . && docker run -p 3000:3000 -v hourbook-data:/data hourbook
#
# Two stages: the first installs every dependency, compiles better-sqlite3 and bundles the server
# and command line into dist/; the second carries only what runs (production dependencies, dist/,
# bin/, the migrations), as the unprivileged user `node`, with the workspaces on the /data volume.
# test/ship.test.ts runs these same steps on the host (images cannot be built on the CI machine).

FROM node:20-bookworm-slim AS build
WORKDIR /app
# A compiler for better-sqlite3 when no prebuilt binary can be downloaded.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Dependencies first (their layer is reused while only the sources change); only the two packages
# whose install scripts are needed run them.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 PORT=3000
WORKDIR /app
# Chinese, Japanese and Korean in the PDF: DejaVu (an npm dependency) has none of them.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-noto-cjk && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/db/migrations ./db/migrations
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "bin/hourbook.js", "serve"]
