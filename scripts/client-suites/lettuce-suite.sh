#!/usr/bin/env bash
# Runs a Lettuce release's own standalone *IntegrationTests (failsafe) against real redis-servers,
# RUNS times without the Hotkey Agent and RUNS times with it (interleaved: baseline-1, agent-1,
# baseline-2, agent-2, ...), and lists every test that fails in EVERY agent run and in NO
# baseline run. Some Lettuce tests are flaky on their own; two runs per side keep them out.
#
# usage: lettuce-suite.sh <lettuce-src-dir> <agent-jar> [it-test-pattern]
#
#   <lettuce-src-dir>  a checkout of github.com/redis/lettuce at a release tag (e.g. 6.8.2.RELEASE);
#                      its target/ is rebuilt, nothing else in it is changed
#   <agent-jar>        the agent, e.g. agent/target/hotkey-agent.jar
#   [it-test-pattern]  failsafe -Dit.test value; default: every *IntegrationTests class outside the
#                      cluster / sentinel / master-replica / module / TLS / unix-socket tests (README)
#
# environment (all optional):
#   RUNS          runs per side (default 2)
#   OUT_DIR       where logs, reports and the comparison go (default /tmp/client-suites/lettuce-<ver>-<time>)
#   AGENT_OPTS    system properties for the agent runs (default: every key served from its first
#                 access, written keys too: "-Dhotkey.debug.every-key-hot=true
#                 -Dhotkey.detect.write-threshold=1000000000")
#   MVN_ARGS      extra Maven arguments (e.g. "-o" when ~/.m2 is already populated)
#   FORK_TIMEOUT  seconds before failsafe kills a test JVM (default 3600)
#   RUN_ORDER     failsafe runOrder (default alphabetical, the same class order in every run)
#   TEST_TIMEOUT  JUnit Jupiter default timeout per test, in every run (default 60s): a few Lettuce
#                 tests wait on a queue without a timeout and can hang a whole run (seen without the
#                 agent: PubSubCommandIntegrationTests#messageAsPushMessage); they then fail instead
#   REUSE_FORKS   false (default): every test class in a fresh JVM. Lettuce's integration tests share
#                 one RedisClient per JVM and a class that fails half-way leaves it changed (e.g.
#                 CommandListenerIntegrationTests leaves its listener on it, which then breaks
#                 AtLeastOnceIntegrationTests without any agent); true: all classes in one JVM, as
#                 the release's own build does
#   SKIP_BASELINE=1 with BASELINE_REPORTS="<dir> [<dir>...]": reuse the reports of earlier runs
#                 without the agent (e.g. OUT_DIR/baseline-1-reports) and run only the agent side
#
# exit: 0 no agent-only failure, 1 agent-only failures (or tests lost with the agent), 2 setup error
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$HERE/common.sh"

parse_suite_args lettuce-core Lettuce 24 "$@"
RUNS=${RUNS:-2}
OUT_DIR=${OUT_DIR:-/tmp/client-suites/lettuce-${VERSION}-$(date +%Y%m%d-%H%M%S)}
AGENT_OPTS=${AGENT_OPTS:--Dhotkey.debug.every-key-hot=true -Dhotkey.detect.write-threshold=1000000000}
FORK_TIMEOUT=${FORK_TIMEOUT:-3600}
RUN_ORDER=${RUN_ORDER:-alphabetical}
TEST_TIMEOUT=${TEST_TIMEOUT:-60s}
REUSE_FORKS=${REUSE_FORKS:-false}
mkdir -p "$OUT_DIR"
REDIS_TMP=$(mktemp -d /tmp/lettuce-suite-redis.XXXXXX)
trap 'stop_redis_all; rm -rf "$REDIS_TMP"' EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# test selection
T=src/test/java
default_pattern() {
  local f rel classes=()
  while IFS= read -r f; do
    rel=${f#"$SRC/$T/"}
    case /$rel in
      # need a Redis Cluster (7379-7385), Sentinels (26379/26380), the sentinel-controlled
      # master/replica pair (6482/6483), Redis Stack modules (RediSearch/RedisJSON, 16379),
      # Redis 8 vector sets, or Microsoft Entra ID: none of which this script provides
      */cluster/*|*/sentinel/*|*/masterreplica/*|*/masterslave/*|*/search/*|*/json/*|*/vector/*|*/authx/*) continue ;;
      *Cluster*|*MasterReplica*|*MasterSlave*|*Sentinel*) continue ;;
      # TLS ports 6443-6445 with the docker env's keystores; unix sockets work/socket-6482 + sentinel
      */SslIntegrationTests.java|*/UnixDomainSocketIntegrationTests.java) continue ;;
    esac
    classes+=("${rel%.java}")
  done < <(find "$SRC/$T" -name '*IntegrationTests.java' | sort)
  local IFS=,
  echo "${classes[*]}"
}
[ -n "$PATTERN" ] || PATTERN=$(default_pattern)
[ -n "$PATTERN" ] || die "no *IntegrationTests found under $SRC/$T"
echo "$PATTERN" | tr ',' '\n' >"$OUT_DIR/selected-tests.txt"
log "Lettuce $VERSION: $(wc -l <"$OUT_DIR/selected-tests.txt") test classes (list: $OUT_DIR/selected-tests.txt), $RUNS runs per side"

# ---------------------------------------------------------------------------------------------
# Redis servers: TestSettings.port() = 6479 (redis-standalone-1) and port(1) = 6480
# (redis-standalone-2), set up as src/test/resources/docker-env/redis-standalone-*/config/
# node-<port>/redis.conf say, minus TLS, unix sockets and file settings (and any loadmodule:
# the Debian server has no Redis Stack modules).
release_conf() {
  local port=$1 f
  f=$(find "$SRC/src/test/resources" -path "*/node-$port/redis.conf" 2>/dev/null | sort | head -1)
  if [ -n "$f" ]; then cat "$f"; echo; fi
}
filtered_conf() {
  release_conf "$1" | sed -e 's/^[[:space:]]*//' | grep -v -E '^(#|$)' \
    | grep -v -E '^(port|tls-|daemonize|pidfile|logfile|dir|save|appendonly|bind|protected-mode|unixsocket|loadmodule)' || true
}
start_servers() {
  local port lines auth
  for port in 6479 6480; do
    lines=$(filtered_conf "$port")
    if [ -z "$lines" ]; then
      log "no docker-env configuration for port $port in the release; using Lettuce 6.8's"
      lines=$'client-output-buffer-limit pubsub 256k 128k 5\nenable-debug-command yes'
    fi
    auth=""
    if echo "$lines" | grep -q '^requirepass '; then auth="-a $(echo "$lines" | sed -n 's/^requirepass //p' | head -1)"; fi
    local -a arr=()
    mapfile -t arr <<<"$lines"
    printf '%s\n' "${arr[@]}" >"$OUT_DIR/redis-$port.conf.extra"
    start_redis "$port" "$auth" "${arr[@]}"
  done
}

# ---------------------------------------------------------------------------------------------
MVN_COMMON=(-B -T 1 -Djacoco.skip=true -Dformatter.skip=true -Dmaven.test.failure.ignore=true
            -DskipITs=false -DfailIfNoTests=false -Dfailsafe.failIfNoSpecifiedTests=false
            -Dfailsafe.timeout="$FORK_TIMEOUT" -Dfailsafe.runOrder="$RUN_ORDER" -DforkCount=1 -DreuseForks="$REUSE_FORKS")
# shellcheck disable=SC2206
[ -n "${MVN_ARGS:-}" ] && MVN_COMMON+=($MVN_ARGS)

log "compiling $SRC (mvn test-compile)"
t0=$(date +%s)
( cd "$SRC" && mvn "${MVN_COMMON[@]}" test-compile ) >"$OUT_DIR/compile.log" 2>&1 \
  || { tail -40 "$OUT_DIR/compile.log" >&2; die "build failed, see $OUT_DIR/compile.log"; }
log "compiled in $(fmt_secs $(( $(date +%s) - t0 )))"

run_side() { # run_side NAME [jvm-options]
  local name=$1 jvm=${2:-} t0 rc=0
  stop_redis_all
  start_servers
  flush_all_servers
  rm -rf "$SRC/target/failsafe-reports"
  # the pom leaves argLine to the ${argLine} property (JaCoCo's, skipped here): ours replaces it
  local -a extra=(-DargLine="-Djunit.jupiter.execution.timeout.default=$TEST_TIMEOUT${jvm:+ $jvm}")
  log "run '$name': mvn failsafe:integration-test -Dit.test=<${PATTERN:0:50}...> ${extra[*]}"
  [ -z "$jvm" ] || start_hits_poller "$name"
  t0=$(date +%s)
  # failsafe's goal directly (after test-compile): no surefire unit tests, no packaging
  ( cd "$SRC" && mvn "${MVN_COMMON[@]}" "${extra[@]}" -Dit.test="$PATTERN" test-compile failsafe:integration-test ) \
    >"$OUT_DIR/$name.mvn.log" 2>&1 || rc=$?
  local secs=$(( $(date +%s) - t0 ))
  [ -z "$jvm" ] || stop_hits_poller "$name"
  echo "$secs" >"$OUT_DIR/$name.seconds"
  copy_reports "$SRC/target/failsafe-reports" "$OUT_DIR/$name-reports"
  log "run '$name' took $(fmt_secs "$secs") (mvn exit $rc); $(grep -E 'Tests run:.*Fail' "$OUT_DIR/$name.mvn.log" | tail -1 | sed 's/^\[[A-Z]*\] //')"
  if ! ls "$OUT_DIR/$name-reports"/TEST-*.xml >/dev/null 2>&1; then
    tail -60 "$OUT_DIR/$name.mvn.log" >&2
    die "run '$name' produced no test reports (see $OUT_DIR/$name.mvn.log)"
  fi
  if grep -rqs -F '[hotkey] active' "$OUT_DIR/$name.mvn.log" "$OUT_DIR/$name-reports"; then
    [ -n "$jvm" ] || die "run '$name' shows '[hotkey] active' although it ran without the agent"
  else
    [ -z "$jvm" ] || die "run '$name': no '[hotkey] active' line in its output: the agent did not start (see $OUT_DIR/$name.mvn.log)"
  fi
}

base_args=() agent_args=()
if [ "${SKIP_BASELINE:-0}" = 1 ] && [ -n "${BASELINE_REPORTS:-}" ]; then
  for dir in $BASELINE_REPORTS; do
    log "reusing baseline reports from $dir"
    base_args+=(--baseline "$dir")
  done
fi
for i in $(seq 1 "$RUNS"); do
  if [ "${SKIP_BASELINE:-0}" != 1 ]; then
    run_side "baseline-$i"
    base_args+=(--baseline "$OUT_DIR/baseline-$i-reports")
  fi
  run_side "agent-$i" "-javaagent:$JAR -Dhotkey.http.port=$HITS_PORT $AGENT_OPTS"
  agent_args+=(--agent "$OUT_DIR/agent-$i-reports")
done
stop_redis_all

set +e
python3 "$HERE/compare-results.py" "${base_args[@]}" "${agent_args[@]}" --out "$OUT_DIR/agent-only.txt" \
  | tee "$OUT_DIR/comparison.txt"
rc=${PIPESTATUS[0]}
log "results in $OUT_DIR (comparison.txt, agent-only.txt, *.mvn.log, *-reports/)"
exit "$rc"
