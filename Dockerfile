# syntax=docker/dockerfile:1
#
# chessd: a multi-stage build giving a small runtime image with the binary (web/ compiled in) and config/,
# running as a non-root user with a health check.
#
#   docker build -t chessd .                 # needs BuildKit (Docker 23+ uses it by default;
#                                            # older: DOCKER_BUILDKIT=1 docker build …)
#   docker run --rm -p 8080:8080 chessd
#
# CPU: the image runs on any x86-64 (target-cpu=x86-64, the baseline; the chess core then uses
# magic lookups). The development build's .cargo/config.toml (x86-64-v3: POPCNT, BMI2, AVX2) is
# deliberately not copied in. For a faster image that needs a Haswell-or-later CPU:
#   docker build --build-arg TARGET_CPU=x86-64-v3 -t chessd .

# ---- build ----
# Pinned to the workspace's rust-version (Cargo.toml), so the image builds as CI does.
FROM rust:1.95-bookworm AS builder
ARG TARGET_CPU=x86-64
ENV RUSTFLAGS="-C target-cpu=${TARGET_CPU}"
WORKDIR /build

# The workspace: manifests, lock file, the crates and everything compiled in
# (config/default.toml and web/ are embedded by include_str!/include_bytes!,
# crates/chessd-server/migrations/ by sqlx::migrate!; benches/ holds targets declared in
# Cargo.toml, which cargo requires to exist; build.rs looks for the programs the tests use).
COPY Cargo.toml Cargo.lock build.rs ./
COPY crates/ crates/
COPY src/ src/
COPY benches/ benches/
COPY config/ config/
COPY web/ web/

RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/build/target \
    cargo build --profile dist --locked -p chessd \
    && install -m 0755 target/dist/chessd /usr/local/bin/chessd

# ---- runtime ----
FROM debian:bookworm-slim

# ca-certificates for outgoing TLS, curl for the health check.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*

RUN groupadd --system --gid 10001 chessd \
    && useradd --system --uid 10001 --gid chessd --home-dir /app --no-create-home \
       --shell /usr/sbin/nologin chessd \
    && mkdir -p /app/data && chown chessd:chessd /app/data

WORKDIR /app
COPY --from=builder /usr/local/bin/chessd /usr/local/bin/chessd
COPY config/ /app/config/

USER chessd:chessd

# Listen on every interface inside the container (the built-in default is 127.0.0.1:8080).
# Any other setting: CHESSD_<KEY> or CHESSD_<SECTION>__<KEY>, or `serve --config FILE`.
# Games are kept in SQLite under /app/data: mount a volume there to keep them across containers
# (or point CHESSD_STORE__URL at PostgreSQL).
ENV CHESSD_BIND=0.0.0.0:8080 \
    CHESSD_STORE__URL=sqlite:///app/data/chessd.sqlite \
    RUST_LOG=info
VOLUME /app/data
EXPOSE 8080

HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/health || exit 1

# SIGTERM (docker stop) shuts down gracefully: games leave memory and come back from the store
# at the next start (within games.shutdown_grace_secs; docker's default stop timeout is 10 s).
STOPSIGNAL SIGTERM
ENTRYPOINT ["chessd"]
CMD ["serve"]
