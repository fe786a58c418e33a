#!/usr/bin/env python3
"""wrk against RouteLoadServer: the same route unprotected and behind
FirebaseAuthenticator, in one run, as Benchmarks/README.md reports it.

    python3 .ci/route_load.py ROUTE_LOAD_SERVER [--duration S] [--rounds N]
        [--connections N] [--threads T] [--pairs N [--pair-seconds S]]
        [--require-ratio R]

Starts the server (an emulator inside it), which writes the ID tokens to a
0600 file in a private folder; runs wrk on each route in turn, --rounds
times (a VM's throughput drifts by tens of percent within a minute, so the
routes are interleaved and each row is the median of its rounds); prints a
Markdown table. Fails on any error or non-2xx answer, and, with
--require-ratio, when the cached route keeps less than R of /open's
requests per second. The VM's drift between minutes is larger than the
difference measured, so the ratio is taken between neighbours: with
--pairs N, N short /cached runs each between two /open runs
(open, cached, open, cached, …, open; --pair-seconds each), each divided by
the mean of the two around it, which cancels a drift that is steady over
the sandwich; without, each round's /cached run divided by the /open run
just before it. The judged ratio is the median.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROWS = [
    ("/open", "repeat", "unprotected (no middleware)"),
    ("/cached", "repeat", "FirebaseAuthenticator, repeated token (cache)"),
    ("/cached", "distinct", "FirebaseAuthenticator, distinct tokens (cache)"),
    ("/uncached", "distinct", "FirebaseAuthenticator, cache off: every request verifies"),
    ("/revocation", "repeat", "checkRevoked, default cache (account state 10 s)"),
    ("/revocation-uncached", "repeat", "checkRevoked, nothing cached: the emulator asked each time"),
    ("/if-enrolled", "repeat", "FirebaseSignInPolicy .ifEnrolled, account state cached (10 s)"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("server")
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--distinct", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=0)
    parser.add_argument("--pair-seconds", type=int, default=3)
    parser.add_argument("--require-ratio", type=float)
    args = parser.parse_args()
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "route_load.lua")

    with tempfile.TemporaryDirectory(prefix="route-load-") as folder:
        os.chmod(folder, 0o700)
        tokens = os.path.join(folder, "tokens")
        started = time.monotonic()
        server = subprocess.Popen([args.server, "--tokens-file", tokens, "--distinct", str(args.distinct)],
                                  stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
        try:
            base = None
            for line in server.stdout:
                match = re.match(r"listening on (http://\S+)", line)
                if match:
                    base = match.group(1)
                    break
            if base is None:
                sys.exit(f"RouteLoadServer exited ({server.wait()}) before listening")
            mode = os.stat(tokens).st_mode & 0o777
            if mode != 0o600:
                sys.exit(f"the tokens file has mode {oct(mode)}, not 0600")
            print(f"server at {base}; {args.distinct} users signed up in {time.monotonic() - started:.1f} s")
            rounds = [[] for _ in ROWS]
            for round_index in range(args.rounds):
                for row, (path, tokens_mode, _) in enumerate(ROWS):
                    # A short warm-up: keys fetched, connections made, caches filled.
                    run_wrk(base + path, tokens, tokens_mode, script, args, seconds=1)
                    rounds[row].append(run_wrk(base + path, tokens, tokens_mode, script, args, seconds=args.duration))
                if args.rounds > 1:
                    print(f"round {round_index + 1} of {args.rounds}: " + ", ".join(
                        f"{path} {r[-1]['rate']:,.0f}/s" for (path, _, _), r in zip(ROWS, rounds)), flush=True)
            results = [(path, tokens_mode, label, median_result(row_rounds))
                       for (path, tokens_mode, label), row_rounds in zip(ROWS, rounds)]
            sandwich = []
            for index in range(2 * args.pairs + 1 if args.pairs else 0):
                path = "/open" if index % 2 == 0 else "/cached"
                sandwich.append(run_wrk(base + path, tokens, "repeat", script, args, seconds=args.pair_seconds))
        finally:
            server.terminate()
            server.wait(timeout=30)

    open_rate = results[0][3]["rate"]
    print()
    print(f"| route | what it checks | requests/s | share of /open | p50 | p99 |")
    print(f"|---|---|---:|---:|---:|---:|")
    failed = []
    for path, tokens_mode, label, result in results:
        print(f"| `{path}` ({tokens_mode}) | {label} | {result['rate']:,.0f} | {100 * result['rate'] / open_rate:.0f} % "
              f"| {result['p50'] / 1000:.2f} ms | {result['p99'] / 1000:.2f} ms |")
        if result["status_errors"] or result["socket_errors"] or result["requests"] == 0:
            failed.append(f"{path} ({tokens_mode}): {result['requests']} requests, {result['status_errors']} non-2xx, "
                          f"{result['socket_errors']} socket errors")
    print(f"\nwrk -t{args.threads} -c{args.connections} -d{args.duration}s, each route after a 1 s warm-up, "
          f"{args.rounds} round(s); each figure is the median of its rounds; {args.distinct} distinct tokens")
    failed += [f"{'/open' if index % 2 == 0 else '/cached'} (pair run {index + 1}): {r['status_errors']} non-2xx, "
               f"{r['socket_errors']} socket errors" for index, r in enumerate(sandwich) if r["status_errors"] or r["socket_errors"]]
    if failed:
        sys.exit("errors under load:\n  " + "\n  ".join(failed))
    if sandwich:
        # Each /cached run beside the mean of the /open runs on either side of it.
        ratios = [sandwich[index]["rate"] / ((sandwich[index - 1]["rate"] + sandwich[index + 1]["rate"]) / 2)
                  for index in range(1, len(sandwich), 2)]
        ratio = median(ratios)
        print(f"/open and /cached alternated, {args.pair_seconds} s each: "
              + ", ".join(f"{r['rate']:,.0f}" for r in sandwich) + " requests/s")
        print(f"/cached beside the mean of the /open runs around it: {', '.join(f'{r:.0%}' for r in ratios)} (median {ratio:.0%})")
    else:
        # Each round's /cached run beside the /open run just before it (rows 1 and 0).
        ratios = [cached["rate"] / opened["rate"] for opened, cached in zip(rounds[0], rounds[1])]
        ratio = median(ratios)
        print(f"/cached beside the /open run before it, per round: {', '.join(f'{r:.0%}' for r in ratios)} (median {ratio:.0%})")
    if args.require_ratio is not None:
        if ratio < args.require_ratio:
            sys.exit(f"/cached kept {ratio:.0%} of /open's throughput; {args.require_ratio:.0%} required")
        print(f"/cached keeps {ratio:.0%} of /open's throughput (required: {args.require_ratio:.0%})")


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def median_result(results):
    """The median of each figure over rounds; errors summed."""
    return {
        "rate": median([r["rate"] for r in results]),
        "p50": median([r["p50"] for r in results]),
        "p99": median([r["p99"] for r in results]),
        "requests": sum(r["requests"] for r in results),
        "status_errors": sum(r["status_errors"] for r in results),
        "socket_errors": sum(r["socket_errors"] for r in results),
    }


def run_wrk(url, tokens, tokens_mode, script, args, seconds):
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{seconds}s", "--latency", "-s", script, url,
               "--", tokens, tokens_mode]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    line = next((l for l in output.splitlines() if l.startswith("{")), None)
    if line is None:
        sys.exit(f"wrk printed no result for {url}:\n{output}")
    result = json.loads(line)
    result["rate"] = result["requests"] / result["seconds"]
    return result


if __name__ == "__main__":
    main()
