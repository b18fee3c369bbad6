#!/usr/bin/env python3
"""Compare surefire/failsafe XML reports of runs without and with the Hotkey Agent.

usage: compare-results.py --baseline DIR [--baseline DIR ...] --agent DIR [--agent DIR ...]
                          [--out FILE]

Each DIR holds the TEST-*.xml files of one complete run of a client's test suite.

A test is an *agent-only failure* when it failed or errored in EVERY agent run and in NO
baseline run (and ran, i.e. was not skipped, in the agent runs). With one run per side this is
simply "fails with the agent, passes (or is skipped) without it".

Also listed, for information (they do not change the exit code):
  * tests that fail in some but not all agent runs and in no baseline run ("flaky with agent"),
  * tests that fail in a baseline run (broken or flaky in this environment, whatever the agent),
  * tests that ran in the baseline runs but are absent from an agent run (a crashed or timed-out
    fork loses its tests; these DO make the exit code non-zero, since the agent may be the cause).

Exit code: 0 no agent-only failure and nothing missing, 1 otherwise, 2 usage/input error.
"""
import argparse
import collections
import glob
import os
import sys
import xml.etree.ElementTree as ET

PASS, FAIL, ERROR, SKIP = "pass", "failure", "error", "skipped"


def load_run(directory):
    """Returns (ordered dict key -> status, dict key -> first line of message)."""
    files = sorted(glob.glob(os.path.join(directory, "**", "TEST-*.xml"), recursive=True))
    if not files:
        raise SystemExit(f"compare-results: no TEST-*.xml under {directory}")
    results = collections.OrderedDict()
    messages = {}
    for path in files:
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            print(f"compare-results: warning: cannot parse {path}: {e}", file=sys.stderr)
            continue
        suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
        seen = collections.Counter()
        for suite in suites:
            for tc in suite.iter("testcase"):
                cls = tc.get("classname") or suite.get("name") or "?"
                name = tc.get("name") or "?"
                base = f"{cls}#{name}"
                seen[base] += 1
                # identical names inside one class (JUnit 5 parameterized display names, reruns)
                # are told apart by their order of appearance
                key = base if seen[base] == 1 else f"{base} (#{seen[base]})"
                status, msg = PASS, None
                for tag in (ERROR, FAIL, "flakyFailure", "flakyError", SKIP):
                    el = tc.find(tag)
                    if el is not None:
                        if tag in (ERROR, FAIL):
                            status = tag
                        elif tag == SKIP:
                            status = SKIP
                        else:
                            continue
                        text = (el.get("message") or el.get("type") or (el.text or "")).strip()
                        msg = text.splitlines()[0][:200] if text else (el.get("type") or "")
                        break
                if key in results and results[key] != PASS and status == PASS:
                    continue
                results[key] = status
                if msg:
                    messages[key] = msg
    return results, messages


def tally(results):
    c = collections.Counter(results.values())
    return (len(results), c[FAIL], c[ERROR], c[SKIP])


def failed(status):
    return status in (FAIL, ERROR)


def group(keys):
    by_class = collections.OrderedDict()
    for k in sorted(keys):
        cls, _, meth = k.partition("#")
        by_class.setdefault(cls, []).append(meth)
    return by_class


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", action="append", required=True, help="reports dir of a run without the agent")
    ap.add_argument("--agent", action="append", required=True, help="reports dir of a run with the agent")
    ap.add_argument("--out", help="also write the agent-only list (class#method per line) to this file")
    a = ap.parse_args()

    runs = []
    for label, dirs in (("without agent", a.baseline), ("with agent", a.agent)):
        for i, d in enumerate(dirs, 1):
            if not os.path.isdir(d):
                print(f"compare-results: not a directory: {d}", file=sys.stderr)
                return 2
            res, msgs = load_run(d)
            runs.append((f"{label} #{i}" if len(dirs) > 1 else label, d, res, msgs))
    base_runs = runs[:len(a.baseline)]
    agent_runs = runs[len(a.baseline):]

    print("== tallies (tests, failures, errors, skipped)")
    for label, d, res, _ in runs:
        t, f, e, s = tally(res)
        print(f"  {label:<18} tests={t:<6} failures={f:<5} errors={e:<5} skipped={s:<5} {d}")

    all_keys = []
    seen = set()
    for _, _, res, _ in runs:
        for k in res:
            if k not in seen:
                seen.add(k)
                all_keys.append(k)

    agent_only, flaky_agent, base_fail, missing = [], [], [], []
    for k in all_keys:
        b = [r[2].get(k) for r in base_runs]
        g = [r[2].get(k) for r in agent_runs]
        base_failed = any(failed(s) for s in b if s)
        base_ran_ok = any(s in (PASS, SKIP) for s in b if s)
        if base_failed:
            base_fail.append(k)
            continue
        if all(s is not None and failed(s) for s in g):
            agent_only.append(k)
        elif any(s is not None and failed(s) for s in g):
            flaky_agent.append(k)
        elif base_ran_ok and any(s is None for s in g) and all(s is not None for s in b):
            missing.append(k)

    def msg_of(k):
        for _, _, _, msgs in agent_runs:
            if k in msgs:
                return msgs[k]
        return ""

    def show(title, keys, with_msg):
        print(f"\n== {title}: {len(keys)}")
        for cls, meths in group(keys).items():
            print(f"  {cls} ({len(meths)})")
            for m in meths:
                extra = ""
                if with_msg:
                    mm = msg_of(f"{cls}#{m}")
                    extra = f"  -- {mm}" if mm else ""
                print(f"      #{m}{extra}")

    show("fail in a run WITHOUT the agent (environment/flaky; not attributed to the agent)", base_fail, False)
    show("fail in some but not all agent runs, never without (flaky with agent; informational)", flaky_agent, True)
    show("ran without the agent but MISSING from an agent run (crashed/timed-out fork?)", missing, False)
    show("AGENT-ONLY FAILURES", agent_only, True)

    if a.out:
        with open(a.out, "w") as fh:
            for k in sorted(agent_only):
                fh.write(k + "\n")

    print(f"\nagent-only failures: {len(agent_only)}; missing with agent: {len(missing)}")
    return 1 if agent_only or missing else 0


if __name__ == "__main__":
    sys.exit(main())
