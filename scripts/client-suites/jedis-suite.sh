#!/usr/bin/env bash
# Runs a Jedis release's own command / pipeline / transaction tests twice against real
# redis-servers -- once without the Hotkey Agent, once with it -- and lists every test that fails
# only with the agent.
#
# usage: jedis-suite.sh <jedis-src-dir> <agent-jar> [test-pattern]
#
#   <jedis-src-dir>  a checkout of github.com/redis/jedis at a release tag (e.g. v5.2.0, v7.5.3);
#                    its target/ is rebuilt, nothing else in it is changed
#   <agent-jar>      the agent, e.g. agent/target/hotkey-agent.jar
#   [test-pattern]   surefire -Dtest value; default: the release's command tests for Jedis and for
#                    pooled UnifiedJedis (JedisPooled / RedisClient), the unified pipeline command
#                    tests, PipeliningTest, TransactionV2Test, ReliableTransactionTest (see README)
#
# environment (all optional):
#   OUT_DIR       where logs, reports and the comparison go (default /tmp/client-suites/jedis-<ver>-<time>)
#   AGENT_OPTS    system properties for the agent run (default: every key served from its first
#                 access, written keys too: "-Dhotkey.debug.every-key-hot=true
#                 -Dhotkey.detect.write-threshold=1000000000")
#   MVN_ARGS      extra Maven arguments (e.g. "-o" when ~/.m2 is already populated)
#   FORK_TIMEOUT  seconds before surefire kills a test JVM (default 3600)
#   RUN_ORDER     surefire runOrder (default alphabetical: both runs, and runs on different
#                 machines, see the classes in the same order; the agent keeps state across the
#                 classes of one JVM, so the order changes which tests it breaks)
#   REUSE_FORKS   true (default): all test classes in one JVM, as the release's build does; false:
#                 a fresh JVM per class (the agent's state then cannot carry from class to class)
#   SKIP_BASELINE=1 with BASELINE_REPORTS=<dir>: reuse the reports of an earlier run without the agent
#
# exit: 0 no agent-only failure, 1 agent-only failures (or tests lost with the agent), 2 setup error
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$HERE/common.sh"

parse_suite_args jedis Jedis 25 "$@"
OUT_DIR=${OUT_DIR:-/tmp/client-suites/jedis-${VERSION}-$(date +%Y%m%d-%H%M%S)}
AGENT_OPTS=${AGENT_OPTS:--Dhotkey.debug.every-key-hot=true -Dhotkey.detect.write-threshold=1000000000}
FORK_TIMEOUT=${FORK_TIMEOUT:-3600}
RUN_ORDER=${RUN_ORDER:-alphabetical}
REUSE_FORKS=${REUSE_FORKS:-true}
mkdir -p "$OUT_DIR"
REDIS_TMP=$(mktemp -d /tmp/jedis-suite-redis.XXXXXX)
trap 'stop_redis_all; rm -rf "$REDIS_TMP"' EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# test selection: whatever of these exists in this release
T=src/test/java/redis/clients/jedis
default_pattern() {
  local f classes=()
  for f in "$SRC"/$T/commands/jedis/*Test.java; do
    case $(basename "$f") in
      # need a Redis Cluster (7379-7384, 7479-7481), Sentinels (26379-26382), a FAILOVER pair
      # (6388/6389) or the test module testmodule.so: not started here, see README
      Cluster*|Sentinel*|Failover*|ModuleTest.java|*TestBase.java) continue ;;
    esac
    classes+=("${f#"$SRC"/src/test/java/}")
  done
  for f in "$SRC"/$T/commands/unified/pooled/*Test.java "$SRC"/$T/commands/unified/client/*Test.java \
           "$SRC"/$T/commands/unified/client/*IT.java "$SRC"/$T/commands/unified/pipeline/*Test.java \
           "$SRC"/$T/PipeliningTest.java "$SRC"/$T/TransactionV2Test.java "$SRC"/$T/ReliableTransactionTest.java; do
    [ -f "$f" ] || continue
    case $(basename "$f") in *TestBase.java) continue ;; esac
    classes+=("${f#"$SRC"/src/test/java/}")
  done
  local IFS=,
  echo "${classes[*]//.java/}"
}
[ -n "$PATTERN" ] || PATTERN=$(default_pattern)
[ -n "$PATTERN" ] || die "no test classes found under $SRC/$T"
echo "$PATTERN" | tr ',' '\n' >"$OUT_DIR/selected-tests.txt"
log "Jedis $VERSION: $(wc -l <"$OUT_DIR/selected-tests.txt") test class patterns (list: $OUT_DIR/selected-tests.txt)"

# ---------------------------------------------------------------------------------------------
# Redis servers: what endpoints.json names for the selected tests -- standalone0 (6379, password
# foobared, ACL user acljedis/fizzbuzz), standalone1 (6380, foobared; MigrateTest),
# standalone4-replica-of-standalone1 (6383, replica of 6379; PipeliningTest),
# standalone7-with-lfu-policy (6386, no password, allkeys-lfu; AllKindOfValues/Object/Migrate).
# Their settings are read from the release itself: src/test/resources/env/*/config/node-<port>*/
# redis.conf (Jedis 6+, docker test env) or the REDISn_CONF blocks of its Makefile (Jedis <= 5);
# file, daemon, TLS and unix-socket settings are replaced by ours.
release_conf() { # release_conf PORT -> config lines of that port, as the release writes them
  local port=$1 f
  f=$(ls -d "$SRC"/src/test/resources/env/*/config/node-"$port"/redis.conf \
            "$SRC"/src/test/resources/env/*/config/node-"$port"-*/redis.conf 2>/dev/null | head -1 || true)
  if [ -n "$f" ]; then
    cat "$f"; echo
    # the docker env passes this one on the command line (ENABLE_MODULE_COMMAND_DIRECTIVE)
    [ "$port" = 6379 ] && echo "enable-module-command yes"
  elif [ -f "$SRC/Makefile" ]; then
    awk -v p="$port" '/^define /{blk=""; inb=1; next} /^endef/{if (blk ~ ("\nport " p "\n")) printf "%s", blk; inb=0; next}
                      inb{blk = blk "\n" $0} END{}' "$SRC/Makefile" | sed 1d
    echo
  fi
}
filtered_conf() { # filtered_conf PORT
  release_conf "$1" | sed -e 's/^[[:space:]]*//' | grep -v -E '^(#|$)' \
    | grep -v -E '^(port|tls-|daemonize|pidfile|logfile|dir|save|appendonly|bind|protected-mode|unixsocket)' \
    | sed -E 's/^(slaveof|replicaof)[[:space:]]+(localhost|127\.0\.0\.1)[[:space:]]+/replicaof 127.0.0.1 /' || true
}
declare -A FALLBACK_CONF=(
  [6379]=$'requirepass foobared\nuser acljedis on allcommands allkeys >fizzbuzz\nenable-module-command yes\nclient-output-buffer-limit pubsub 256k 128k 5'
  [6380]=$'requirepass foobared'
  [6383]=$'requirepass foobared\nmasterauth foobared\nreplicaof 127.0.0.1 6379'
  [6386]=$'maxmemory-policy allkeys-lfu'
)
start_servers() {
  local port lines auth
  for port in 6379 6380 6383 6386; do
    lines=$(filtered_conf "$port")
    if [ -z "$lines" ]; then
      log "no configuration for port $port in the release; using the Jedis 5 Makefile's"
      lines=${FALLBACK_CONF[$port]}
    fi
    auth=""
    echo "$lines" | grep -q '^requirepass foobared' && auth="-a foobared"
    local -a arr=()
    mapfile -t arr <<<"$lines"
    printf '%s\n' "${arr[@]}" >"$OUT_DIR/redis-$port.conf.extra"
    start_redis "$port" "$auth" "${arr[@]}"
  done
  wait_replica_up 6383
}

# ---------------------------------------------------------------------------------------------
ARGPROP=$(argline_property "$SRC")
MVN_COMMON=(-B -T 1 -Djacoco.skip=true -Dformatter.skip=true -Dmaven.test.failure.ignore=true
            -DfailIfNoTests=false -Dsurefire.failIfNoSpecifiedTests=false
            -DexcludedGroupsForUnitTests=none -DskipUnitTests=false
            -Dsurefire.timeout="$FORK_TIMEOUT" -Dsurefire.runOrder="$RUN_ORDER" -DforkCount=1 -DreuseForks="$REUSE_FORKS")
# shellcheck disable=SC2206
[ -n "${MVN_ARGS:-}" ] && MVN_COMMON+=($MVN_ARGS)

log "compiling $SRC (mvn test-compile)"
t0=$(date +%s)
( cd "$SRC" && mvn "${MVN_COMMON[@]}" -DskipTests test-compile ) >"$OUT_DIR/compile.log" 2>&1 \
  || { tail -40 "$OUT_DIR/compile.log" >&2; die "build failed, see $OUT_DIR/compile.log"; }
log "compiled in $(fmt_secs $(( $(date +%s) - t0 )))"

run_side() { # run_side NAME [jvm-options]
  local name=$1 jvm=${2:-} t0 rc=0
  stop_redis_all
  start_servers
  flush_all_servers
  rm -rf "$SRC/target/surefire-reports"
  local -a extra=()
  if [ "$ARGPROP" = JVM_OPTS ]; then
    extra=(-DJVM_OPTS="$jvm" -DargLine=)
  elif [ -n "$jvm" ]; then
    extra=(-DargLine="$jvm")
  fi
  log "run '$name': mvn test -Dtest=<${PATTERN:0:60}...> ${extra[*]}"
  [ -z "$jvm" ] || start_hits_poller "$name"
  t0=$(date +%s)
  ( cd "$SRC" && mvn "${MVN_COMMON[@]}" "${extra[@]}" -Dtest="$PATTERN" test ) >"$OUT_DIR/$name.mvn.log" 2>&1 || rc=$?
  local secs=$(( $(date +%s) - t0 ))
  [ -z "$jvm" ] || stop_hits_poller "$name"
  echo "$secs" >"$OUT_DIR/$name.seconds"
  copy_reports "$SRC/target/surefire-reports" "$OUT_DIR/$name-reports"
  log "run '$name' took $(fmt_secs "$secs") (mvn exit $rc); $(grep -E 'Tests run:.*Fail' "$OUT_DIR/$name.mvn.log" | tail -1 | sed 's/^\[[A-Z]*\] //')"
  if ! ls "$OUT_DIR/$name-reports"/TEST-*.xml >/dev/null 2>&1; then
    tail -60 "$OUT_DIR/$name.mvn.log" >&2
    die "run '$name' produced no test reports (see $OUT_DIR/$name.mvn.log)"
  fi
  # did the agent really run (or really not run)?
  if grep -rqs -F '[hotkey] active' "$OUT_DIR/$name.mvn.log" "$OUT_DIR/$name-reports"; then
    [ -n "$jvm" ] || die "run '$name' shows '[hotkey] active' although it ran without the agent"
  else
    [ -z "$jvm" ] || die "run '$name': no '[hotkey] active' line in its output: the agent did not start (see $OUT_DIR/$name.mvn.log)"
  fi
}

if [ "${SKIP_BASELINE:-0}" = 1 ] && [ -n "${BASELINE_REPORTS:-}" ]; then
  log "reusing baseline reports from $BASELINE_REPORTS"
  copy_reports "$BASELINE_REPORTS" "$OUT_DIR/baseline-reports"
else
  run_side baseline ""
fi
run_side agent "-javaagent:$JAR -Dhotkey.http.port=$HITS_PORT $AGENT_OPTS"
stop_redis_all

set +e
python3 "$HERE/compare-results.py" --baseline "$OUT_DIR/baseline-reports" --agent "$OUT_DIR/agent-reports" \
  --out "$OUT_DIR/agent-only.txt" | tee "$OUT_DIR/comparison.txt"
rc=${PIPESTATUS[0]}
log "results in $OUT_DIR (comparison.txt, agent-only.txt, *.mvn.log, *-reports/)"
exit "$rc"
