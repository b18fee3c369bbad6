#!/bin/bash
# What the agent itself sends to Redis per instance: one JVM (the integration tests' FleetApp) reading one
# hot key for 30 s with tracking and fleet detection on; INFO commandstats over the last 20 s. Needs the built
# jars and integration-tests/target (mvn -B verify -pl integration-tests -am -Dit.test=FleetIT ... builds both).
set -e
cd "$(dirname "$0")/../.."
BIN=$(ls integration-tests/target/it-work/bin/redis-server-6.2.6* | head -1)
PORT=${PORT:-26555}
D=$(mktemp -d); $BIN --port $PORT --save "" --appendonly no --dir $D --daemonize no > $D/log 2>&1 & RP=$!
sleep 0.5
CP="integration-tests/target/classes:$(ls integration-tests/target/clients/jedis-8.0.2/*.jar | tr '\n' ':')"
redis-cli -p $PORT set fleet:k v >/dev/null
java -javaagent:agent/target/hotkey-agent.jar -Dhotkey.detect.threshold=200 -Dhotkey.detect.window=1s \
  -Dhotkey.detect.fleet-threshold=100 -Dhotkey.redis.uri=redis://127.0.0.1:$PORT -Dhotkey.cache.ttl=30s \
  -cp $CP io.hotkey.it.app.FleetApp --client jedis --redis 127.0.0.1:$PORT --key fleet:k --rate 1000 --seconds 30 > $D/app.out 2>&1 &
AP=$!
sleep 10
redis-cli -p $PORT config resetstat >/dev/null
sleep 20
redis-cli -p $PORT info commandstats | grep -v "^#" | tr -d '\r'
redis-cli -p $PORT client list | grep -c "name=hotkey-agent" | sed 's/^/agent connections: /'
wait $AP || true
grep -h "RESULT" $D/app.out | tr '\n' ' '; echo
kill $RP; rm -rf $D
