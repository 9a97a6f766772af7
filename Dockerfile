# Minutes in a container: build with the dev dependencies, run without them.
#   docker build -t minutes .
#   docker run -d --name minutes --env-file .env -v minutes-data:/data minutes
# The data root (every channel's memory, and recall's vector cache) is the /data volume; put a
# minutes.config.json there too and set MINUTES_CONFIG=/data/minutes.config.json to use one.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the sources are not here yet for `prepare`, and the one dependency script
# (an optional file watcher of jest's) is not needed to build.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    MINUTES_DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/prepare.js scripts/prepare.js
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
# The packaged model's vectors for recall's null lines (a new data root need not embed them).
COPY assets ./assets
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
# The image's unprivileged user; the bot needs no root and writes only under /data.
USER node
VOLUME /data
CMD ["node", "bin/minutes.js", "start"]
