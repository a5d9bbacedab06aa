# Chaperone as an HTTP sidecar: streamable HTTP at /mcp, SSE at /sse.
#
#   docker build -t chaperone .
#   docker run --rm -p 127.0.0.1:8931:8931 --shm-size=1g \
#     -e CHAPERONE_TOKEN="$(openssl rand -hex 32)" chaperone
#
# The server refuses to start without CHAPERONE_TOKEN, since it listens on
# every interface of the container.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/chaperone ./cmd/chaperone

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-core fonts-noto-color-emoji ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 --shell /usr/sbin/nologin chaperone
COPY --from=build /out/chaperone /usr/local/bin/chaperone
USER chaperone
WORKDIR /home/chaperone
ENV CHROME_PATH=/usr/bin/chromium
# Docker's default seccomp profile denies the namespaces Chromium's own
# sandbox needs; the container is the sandbox. Set it to false when running
# with a seccomp profile that allows them.
ENV CHAPERONE_NO_SANDBOX=true
EXPOSE 8931
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["chaperone", "healthcheck"]
CMD ["chaperone", "serve", "--http", "0.0.0.0:8931"]
