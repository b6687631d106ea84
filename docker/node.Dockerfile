# One image for the Node services (server, workers, hpc-bridge); the command picks which.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY schema/package.json schema/
COPY server/package.json server/
COPY workers/package.json workers/
COPY hpc-bridge/package.json hpc-bridge/
COPY client/package.json client/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build -w client

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends curl openmpi-bin libgomp1 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app /app
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
USER node
EXPOSE 8080
CMD ["node", "--import", "tsx", "server/src/main.ts"]
