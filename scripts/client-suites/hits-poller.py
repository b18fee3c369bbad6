#!/usr/bin/env python3
"""Polls the agent's /metrics while a suite runs and keeps the local hits and misses it served.

usage: hits-poller.py PORT OUTFILE

Every half second reads hotkey_cache_hits_total and hotkey_cache_misses_total from
http://127.0.0.1:PORT/metrics and writes "hits misses" to OUTFILE. A test JVM that ends takes its
counters with it, and the next one starts from zero: what a JVM reached is added up when a counter
falls. Up to half a second of a JVM's last reads can be missed.
"""
import sys
import time
import urllib.request

port, out = int(sys.argv[1]), sys.argv[2]
names = ("hotkey_cache_hits_total", "hotkey_cache_misses_total")
done = [0.0, 0.0]  # what ended JVMs reached
last = [0.0, 0.0]  # the running JVM's last figures

def sample():
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=2) as r:
        text = r.read().decode("utf-8", "replace")
    found = [0.0, 0.0]
    for line in text.splitlines():
        for i, name in enumerate(names):
            if line.startswith(name + " ") or line.startswith(name + "{"):
                found[i] += float(line.rsplit(" ", 1)[1])
    return found

while True:
    try:
        now = sample()
        if now[0] < last[0] or now[1] < last[1]:
            done = [d + l for d, l in zip(done, last)]
        last = now
    except Exception:
        pass  # no JVM listening right now
    with open(out, "w") as f:
        f.write("%d %d\n" % (done[0] + last[0], done[1] + last[1]))
    time.sleep(0.5)
