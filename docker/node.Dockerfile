# One image for the Node services (server, workers, hpc-bridge); the command picks which.
# The hpc-bridge's local backend runs the kernels with mpirun inside the container.
FROM debian:bookworm-slim AS kernels
RUN apt-get update && apt-get install -y --no-install-recommends \
      cmake g++ make libopenmpi-dev openmpi-bin libgtest-dev libsimde-dev python3 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY kernels kernels
RUN cmake -S kernels -B kernels/build -DCMAKE_BUILD_TYPE=Release \
 && cmake --build kernels/build -j"$(nproc)"

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY schema/package.json schema/
COPY jobs/package.json jobs/
COPY server/package.json server/
COPY workers/package.json workers/
COPY hpc-bridge/package.json hpc-bridge/
COPY client/package.json client/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build -w client

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends curl openmpi-bin libgomp1 time \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app /app
COPY --from=kernels /src/kernels/build/bin /app/kernels/build/bin
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
# A named volume mounted here starts with this directory's owner.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
CMD ["node", "--import", "tsx", "server/src/main.ts"]
