#!/usr/bin/env python3
"""An independent check of `contend compare`'s run-level intervals.

Reads the run.json files of two sides (and optionally a folder of runs as
the host's record), recomputes from the repeats alone, without contend's
code, each strategy's cost (flat out: loop ns/op; paced: busy ns less the
floor's in place), run by run: the repeats a figure uses (the undisturbed
ones while two remain), each run's mean, the line cost's slope pooled
within runs, run means adjusted to the common line cost, their spread
pooled over both sides and the record, and the 95% half-width of the
change in % of the base mean. Prints one line per strategy and regime, to
set beside `contend compare BASE TEST --verbose`.

    scripts/runs-check.py BASE_DIR TEST_DIR [RECORD_DIR]

Needs Python 3 and scipy (for Student's t quantile). Not part of CI.
"""
import glob
import json
import math
import os
import sys

from scipy import stats


def runs_of(path):
    if os.path.isfile(path):
        return [path]
    files = sorted(glob.glob(os.path.join(path, "**", "run.json"), recursive=True))
    return files


def cost(strategy, repeat):
    if strategy["rate"] is None:
        return repeat["write_loop_ns"]
    if repeat.get("floor_busy_ns") is None:
        return None
    return repeat["write_busy_ns"] - repeat["floor_busy_ns"]


def used(repeats):
    clean = [r for r in repeats if not r["interference"].get("disturbed")]
    return clean if len(clean) >= 2 or len(clean) == len(repeats) else repeats


def per_run(files):
    """{(name, rate): [[(value, line_ns), ...] per run]}"""
    out = {}
    for f in files:
        run = json.load(open(f))
        for s in run["strategies"]:
            pts = []
            for r in used(s["repeats"]):
                v = cost(s, r)
                if v is not None:
                    pts.append((v, r.get("line_ns")))
            out.setdefault((s["name"], s["rate"]), []).append(pts)
    return out


def mean(v):
    return sum(v) / len(v)


def slope(runs):
    """The line cost's slope pooled within runs and its standard error."""
    sxx = sxy = 0.0
    n = 0
    for pts in runs:
        if any(x is None for _, x in pts) or len(pts) < 2:
            return 0.0, 0.0
        ym, xm = mean([y for y, _ in pts]), mean([x for _, x in pts])
        sxx += sum((x - xm) ** 2 for _, x in pts)
        sxy += sum((x - xm) * (y - ym) for y, x in pts)
        n += len(pts)
    if sxx <= 0:
        return 0.0, 0.0
    b = sxy / sxx
    sse = 0.0
    for pts in runs:
        ym, xm = mean([y for y, _ in pts]), mean([x for _, x in pts])
        sse += sum((y - ym - b * (x - xm)) ** 2 for y, x in pts)
    return b, math.sqrt(sse / (n - len(runs) - 1) / sxx)


def adjusted_means(runs, b, grand):
    return [mean([y for y, _ in p]) - b * (mean([x for _, x in p]) - grand) for p in runs]


def main():
    base, test = per_run(runs_of(sys.argv[1])), per_run(runs_of(sys.argv[2]))
    record = per_run(runs_of(sys.argv[3])) if len(sys.argv) > 3 else {}
    for key in base:
        if key not in test:
            continue
        b_runs, t_runs = base[key], test[key]
        both = b_runs + t_runs
        b, b_se = slope(both)
        grand = mean([mean([x for _, x in p]) for p in both]) if b else 0.0
        # What the slope's doubt adds: its standard error times how far
        # apart the sides' line costs are.
        dx = (
            mean([mean([x for _, x in p]) for p in t_runs])
            - mean([mean([x for _, x in p]) for p in b_runs])
            if b
            else 0.0
        )
        zb, zt = adjusted_means(b_runs, b, grand), adjusted_means(t_runs, b, grand)
        ss = sum((z - mean(zb)) ** 2 for z in zb) + sum((z - mean(zt)) ** 2 for z in zt)
        df = len(zb) - 1 + len(zt) - 1
        if key in record and len(record[key]) >= 2:
            rb, _ = slope(record[key])
            rg = mean([mean([x for _, x in p]) for p in record[key]]) if rb else 0.0
            zr = adjusted_means(record[key], rb, rg)
            ss += sum((z - mean(zr)) ** 2 for z in zr)
            df += len(zr) - 1
        name = "%s %s" % (key[0], "flat out" if key[1] is None else "%g/s" % key[1])
        if df == 0:
            print("%-45s one run a side: no interval" % name)
            continue
        sd = math.sqrt(ss / df)
        se = math.sqrt(sd**2 * (1 / len(zb) + 1 / len(zt)) + (b_se * dx) ** 2)
        half = stats.t.ppf(0.975, df) * se
        change = mean(zt) - mean(zb)
        print(
            "%-45s change %+7.2f ns (%+6.1f%%) ±%6.2f ns (±%5.1f%%), %d df, slope %.2f"
            % (name, change, 100 * change / mean(zb), half, 100 * half / mean(zb), df, b)
        )


if __name__ == "__main__":
    main()
