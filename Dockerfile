# Production image: builds native modules (better-sqlite3) and the bundles, then runs as an unprivileged user.
# Debian 13 (trixie): the uWebSockets.js binaries for Node 22 and 24 need glibc 2.38 or later.
FROM node:22-trixie-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:22-trixie-slim
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
# The same Node flags as `npm start` (package.json): a 4 MB young generation keeps GC pauses short (docs/performance.md).
CMD ["node", "--max-semi-space-size=4", "dist/src/main.js"]
