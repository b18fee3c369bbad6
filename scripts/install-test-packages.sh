#!/usr/bin/env bash
# Installs the Debian packages some tests need, when they are missing: Redis 7 (redis-server,
# redis-tools), Chromium (the live page's test loads it headless) and tmux (runs
# `top` in a pseudo-terminal). `mvn verify` runs it first (root pom, validate phase). Without root or apt-get it
# only says what is missing, and the tests that need it fail naming the package.
set -u
needed=()
redis_version=$(/usr/bin/redis-server --version 2>/dev/null || true)
case "$redis_version" in
  *" v=7."*) ;;
  *) needed+=(redis-server) ;;
esac
command -v redis-cli >/dev/null 2>&1 || needed+=(redis-tools)
command -v chromium >/dev/null 2>&1 || needed+=(chromium)
command -v tmux >/dev/null 2>&1 || needed+=(tmux)
[ ${#needed[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "[test-packages] missing: ${needed[*]}; install them with: sudo apt-get install -y ${needed[*]}" >&2
  exit 0
fi
echo "[test-packages] installing ${needed[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${needed[@]}" >&2 \
  || { apt-get update -q >&2 && apt-get install -y -q --no-install-recommends "${needed[@]}" >&2; } \
  || echo "[test-packages] could not install ${needed[*]}; the tests that need them will fail" >&2
exit 0
