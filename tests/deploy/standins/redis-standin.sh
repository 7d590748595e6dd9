#!/bin/sh
# `redis-server ARGS` as the upstream image runs it: with protected mode off.
if [ "${1:-}" = redis-server ]; then
  shift
  exec redis-server --protected-mode no "$@"
fi
exec "$@"
