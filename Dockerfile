# syntax=docker/dockerfile:1
# Build: bundle the TypeScript sources with esbuild (a dev dependency).
FROM node:22-alpine AS build
# Intermediate stages are labelled so that clean-ups can find them (npm run test:containers).
LABEL io.feature-flag-admin-api.stage=intermediate
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json build.mjs ./
COPY src ./src
COPY web ./web
RUN npm run build

# Production dependencies only.
FROM node:22-alpine AS deps
LABEL io.feature-flag-admin-api.stage=intermediate
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM node:22-alpine
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4242 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY migrations ./migrations
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 4242
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s --retries=3 CMD wget -qO- http://127.0.0.1:4242/ready || exit 1
CMD ["node", "dist/server.js"]
