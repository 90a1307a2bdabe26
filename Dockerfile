# One image for the API and the worker (started with `npm run start:worker`).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY data ./data
# The partner's guide and the other docs, served at /docs/guide.
COPY docs/*.md ./docs/
USER node
EXPOSE 3000
# The young generation at a fixed 32 MB, as `npm start` runs it (README.md, "Node in production").
CMD ["node", "--max-semi-space-size=32", "--min-semi-space-size=32", "dist/src/main.js"]
