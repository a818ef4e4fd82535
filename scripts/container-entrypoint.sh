#!/bin/sh
# The image's entry point. A fleet service image sets SERVICE (docker-compose.yml builds one per
# service); otherwise the arguments are an rloop command, by default `review /src`:
#   docker run --rm -v "$PWD:/src:ro" <image>                         # review the mounted checkout
#   docker run --rm -v "$PWD:/src:ro" <image> review /src --format sarif
set -eu
app="${RLOOP_APP:-/app}"
if [ -n "${SERVICE:-}" ]; then
  exec node "$app/services/$SERVICE/dist/main.js"
fi
exec node "$app/apps/cli/bin/rloop.js" "$@"
