#!/usr/bin/env python3
# Checks what tests/lib/whatif_probe.js measured in Chromium (the <body data-probe> of a dumped DOM):
# each chart has an x axis with ticks (the cost chart a y axis too), no text leaves its chart and no two
# texts overlap; each money cell of the options table reads as `scaleplan compare`'s table prints it, and
# the page gives compare's reasons for its "-" cells.
#   whatif_chart.py DOM.html COMPARE_TABLE.txt      exit 0 when all hold, 1 with each failure printed
# SPDX-License-Identifier: GPL-3.0-or-later
import html
import json
import re
import sys


def table_money(path):
    """capex, rent/run and tco/run of each row of compare's table: the three cells after the tta interval."""
    rows = []
    for line in open(path, encoding="utf-8"):
        if not re.match(r"^\s*>?\d+ ", line):  # ">4": the pick's rank
            continue
        tok = line.split()
        at = next(i for i, t in enumerate(tok) if re.match(r"^\(.*-.*\)$", t))
        rows.append({"capex_usd": tok[at + 1], "rent_usd": tok[at + 2], "tco_usd": tok[at + 3]})
    return rows


def main():
    dom = open(sys.argv[1], encoding="utf-8").read()
    m = re.search(r'data-probe="([^"]*)"', dom)
    if not m:
        print("no data-probe on the page: the page did not finish")
        return 1
    probe = json.loads(html.unescape(m.group(1)))
    bad = []
    charts = {c["id"]: c for c in probe["charts"]}
    for cid, need_y in (("chart-tta", False), ("chart-pareto", True)):
        c = charts.get(cid)
        if not c:
            bad.append("%s: not on the page" % cid)
            continue
        if c["ticks_x"] < 3:
            bad.append("%s: %d ticks on the x axis (want at least 3)" % (cid, c["ticks_x"]))
        if need_y and c["ticks_y"] < 3:
            bad.append("%s: %d ticks on the y axis (want at least 3)" % (cid, c["ticks_y"]))
        for t in c["outside"]:
            bad.append("%s: text %r runs off the chart" % (cid, t))
        for t in c["overlaps"]:
            bad.append("%s: texts overlap: %s" % (cid, t))
    want = table_money(sys.argv[2])
    got = probe["money"]
    if len(got) != len(want) or not want:
        bad.append("money: %d rows on the page, %d in compare's table" % (len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        for col, v in g.items():
            if w.get(col) != v:
                bad.append("row %d %s: page %r, command line %r" % (i + 1, col, v, w.get(col)))
    why = [l.rstrip("\n") for l in open(sys.argv[2], encoding="utf-8") if l.startswith("('-' in ")]
    page_why = (probe.get("unpriced") or "").split("\n") if probe.get("unpriced") else []
    if page_why != why:
        bad.append("the reasons for '-': page %r, command line %r" % (page_why, why))
    has_dash = any(v == "-" for r in got for v in r.values())
    if has_dash and not why:
        bad.append("the page has '-' cells and no reason for them")
    for b in bad:
        print(b)
    print("%d charts, %d money rows: %s" % (len(charts), len(got), "fail" if bad else "ok"))
    return 1 if bad else 0


sys.exit(main())
