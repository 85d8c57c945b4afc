# The loom-conform CLI as an image: its two static binaries and nothing else (no shell, no CA
# certificates: loom-conform speaks plain HTTP to bridges and kernels). Nothing is pulled.
# scripts/release.sh builds it with IMAGE=1 from a build context holding only the linux binaries,
# named loom-conform and loom-conform-full (the front runs the full one from beside it;
# docs/releasing.md):
#
#   docker run --rm loom-conform:0.1.0 certify all --builtin sqlite
#   docker run --rm --network host -v "$PWD:/work" loom-conform:0.1.0 \
#     certify all --url http://127.0.0.1:8080/ --html report.html
FROM scratch
ARG VERSION=devel
LABEL org.opencontainers.image.title="loom-conform" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/loom-kernel/loom-conform"
COPY loom-conform loom-conform-full /
# The embedded SQLite store and the golden runs write temporary files; reports go to /work.
WORKDIR /tmp
ENV TMPDIR=/tmp
WORKDIR /work
ENTRYPOINT ["/loom-conform"]
CMD ["--help"]
