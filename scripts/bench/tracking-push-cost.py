#!/usr/bin/env python3
# What one CLIENT TRACKING invalidation push costs Redis: CONNECTIONS RESP3 connections track prefix "k"
# (BCAST, as the agent's tracking connections do), one writer SETs k WRITES times; Redis CPU (INFO cpu) with
# the trackers, minus the same writes with nobody tracking, per push received. Starts its own redis-server.
# Usage: ulimit -n 20000; scripts/bench/tracking-push-cost.py CONNECTIONS WRITES [redis-server]
import random
import select
import socket
import subprocess
import sys
import time

connections, writes = int(sys.argv[1]), int(sys.argv[2])
binary = sys.argv[3] if len(sys.argv) > 3 else "/usr/bin/redis-server"
port = 20000 + random.randint(0, 20000)
server = subprocess.Popen(
    [binary, "--port", str(port), "--save", "", "--appendonly", "no", "--maxclients", str(connections + 100)],
    stdout=subprocess.DEVNULL)
time.sleep(0.5)


def send(sock, *args):
    sock.sendall(("*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(a), a) for a in args)).encode())


def redis_cpu(sock):
    send(sock, "INFO", "cpu")
    time.sleep(0.05)
    lines = sock.recv(65536).decode().split("\r\n")
    return sum(float(l.split(":")[1]) for l in lines if l.startswith(("used_cpu_sys:", "used_cpu_user:")))


def drain(trackers, seconds):
    received, until = 0, time.time() + seconds
    while time.time() < until:
        readable, _, _ = select.select(trackers, [], [], 0.05)
        for sock in readable:
            try:
                received += sock.recv(1 << 20).count(b"invalidate")
            except BlockingIOError:
                pass
    return received


trackers = []
for _ in range(connections):
    sock = socket.create_connection(("127.0.0.1", port))
    send(sock, "HELLO", "3")
    send(sock, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "k")
    trackers.append(sock)
time.sleep(1)
for sock in trackers:
    sock.setblocking(False)
drain(trackers, 0.2)  # the HELLO and TRACKING replies

writer = socket.create_connection(("127.0.0.1", port))
before = redis_cpu(writer)
pushes = 0
for i in range(writes):
    send(writer, "SET", "k", str(i))
    writer.recv(100)
    pushes += drain(trackers, 0.002)
pushes += drain(trackers, 1.0)
tracked = redis_cpu(writer) - before

for sock in trackers:
    sock.close()
time.sleep(0.5)
before = redis_cpu(writer)
for i in range(writes):
    send(writer, "SET", "k", str(i))
    writer.recv(100)
untracked = redis_cpu(writer) - before
print("%d trackers, %d writes, %d pushes received: Redis CPU %.3f s tracked, %.3f s untracked; %.2f us per push"
      % (connections, writes, pushes, tracked, untracked, (tracked - untracked) / max(1, pushes) * 1e6))
server.terminate()
