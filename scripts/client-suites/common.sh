# shellcheck shell=bash
# Helpers shared by jedis-suite.sh and lettuce-suite.sh (sourced, not run).
#
# Redis instances are started from the Debian redis-server (override with REDIS_SERVER=...),
# bound to 127.0.0.1 only, each in its own directory under $REDIS_TMP, never daemonized: the
# scripts keep their PIDs and stop exactly those processes.

REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_CLI=${REDIS_CLI:-redis-cli}
REDIS_PIDS=()      # pids of the servers we started
REDIS_PORTS=()     # their ports
declare -A REDIS_AUTH=()   # port -> "redis-cli auth args"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 2; }

require_tools() {
  local t
  for t in "$@"; do command -v "$t" >/dev/null 2>&1 || die "'$t' not found on PATH"; done
}

port_in_use() {
  # true when something listens on 127.0.0.1:$1 (or on all interfaces)
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# start_redis PORT AUTH_ARGS CONFIG_LINES...
#   AUTH_ARGS: what redis-cli needs to talk to it, e.g. "-a foobared" or "--user u --pass p" or ""
#   CONFIG_LINES: extra redis.conf lines (one per argument)
start_redis() {
  local port=$1 auth=$2; shift 2
  local dir="$REDIS_TMP/redis-$port"
  mkdir -p "$dir"
  port_in_use "$port" && die "port $port is already in use; stop whatever listens there first (this script only stops servers it started)"
  {
    echo "port $port"
    echo "bind 127.0.0.1"
    echo "protected-mode no"
    echo "daemonize no"
    echo "dir $dir"
    echo "logfile $dir/redis.log"
    echo "save \"\""
    echo "appendonly no"
    local l
    for l in "$@"; do echo "$l"; done
  } >"$dir/redis.conf"
  "$REDIS_SERVER" "$dir/redis.conf" >/dev/null 2>&1 &
  local pid=$!
  REDIS_PIDS+=("$pid")
  REDIS_PORTS+=("$port")
  REDIS_AUTH[$port]=$auth
  local i
  for i in $(seq 1 100); do
    # shellcheck disable=SC2086
    if "$REDIS_CLI" -h 127.0.0.1 -p "$port" $auth --no-auth-warning ping 2>/dev/null | grep -q PONG; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { cat "$dir/redis.log" >&2; die "redis-server on port $port exited"; }
    sleep 0.1
  done
  die "redis-server on port $port did not answer PING (see $dir/redis.log)"
}

rcli() { # rcli PORT args...
  local port=$1; shift
  # shellcheck disable=SC2086
  "$REDIS_CLI" -h 127.0.0.1 -p "$port" ${REDIS_AUTH[$port]} --no-auth-warning "$@"
}

wait_replica_up() { # wait_replica_up PORT
  local i
  for i in $(seq 1 150); do
    rcli "$1" info replication 2>/dev/null | grep -q 'master_link_status:up' && return 0
    sleep 0.2
  done
  die "replica on port $1 did not sync with its master"
}

flush_all_servers() {
  local p
  for p in "${REDIS_PORTS[@]}"; do
    # replicas refuse writes; their data follows their master
    if rcli "$p" info replication 2>/dev/null | grep -q '^role:master'; then
      rcli "$p" flushall >/dev/null || log "warning: FLUSHALL failed on port $p"
    fi
  done
}

stop_redis_all() {
  local pid
  for pid in "${REDIS_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${REDIS_PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  REDIS_PIDS=()
  REDIS_PORTS=()
  REDIS_AUTH=()
}

# The surefire/failsafe argLine hook of a client pom: prints "JVM_OPTS" when the pom's plugin
# configuration is <argLine>... ${JVM_OPTS}</argLine> (Jedis 6+), "argLine" otherwise (the pom
# leaves argLine to the ${argLine} property, which JaCoCo's prepare-agent also uses).
argline_property() {
  if grep -q '<argLine>[^<]*\${JVM_OPTS}' "$1/pom.xml"; then echo JVM_OPTS; else echo argLine; fi
}

# copy_reports SRC_DIR DEST_DIR: the TEST-*.xml (and the rest, for diagnosis) of one run
copy_reports() {
  mkdir -p "$2"
  if [ -d "$1" ]; then cp -r "$1"/. "$2"/; fi
}

fmt_secs() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# parse_suite_args ARTIFACT LABEL USAGE_LAST_LINE "$@": the arguments both suite scripts take
# (<src-dir> <agent-jar> [pattern]); sets SRC, JAR, PATTERN and VERSION, or prints the usage and exits 2.
parse_suite_args() {
  local artifact=$1 label=$2 usage_end=$3
  shift 3
  [ $# -ge 2 ] || { sed -n "2,${usage_end}p" "$0" | sed 's/^# \{0,1\}//'; exit 2; }
  SRC=$(cd "$1" && pwd) || die "no such directory: $1"
  JAR=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  PATTERN=${3:-}
  [ -f "$SRC/pom.xml" ] && grep -q "<artifactId>$artifact</artifactId>" "$SRC/pom.xml" || die "$SRC is not a $label checkout"
  [ -f "$JAR" ] || die "agent jar not found: $2"
  require_tools mvn java python3 "$REDIS_SERVER" "$REDIS_CLI"
  VERSION=$(git -C "$SRC" describe --tags 2>/dev/null || sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$SRC/pom.xml" | head -1)
}

# The agent run serves /metrics on this port, which the hits poller reads.
HITS_PORT=${HITS_PORT:-19190}

# start_hits_poller NAME: counts the local hits and misses of run NAME into $OUT_DIR/NAME.hits
start_hits_poller() {
  port_in_use "$HITS_PORT" && die "port $HITS_PORT (HITS_PORT, the agent's /metrics) is in use"
  python3 "$HERE/hits-poller.py" "$HITS_PORT" "$OUT_DIR/$1.hits" &
  HITS_POLLER=$!
}

# stop_hits_poller NAME: ends the poller and prints "local hits H, misses M" of run NAME
stop_hits_poller() {
  sleep 1
  kill "$HITS_POLLER" 2>/dev/null || true
  wait "$HITS_POLLER" 2>/dev/null || true
  local hits misses
  read -r hits misses <"$OUT_DIR/$1.hits" || { hits=?; misses=?; }
  log "run '$1': the agent answered $hits reads locally and sent $misses of the hot keys' reads to Redis"
}
