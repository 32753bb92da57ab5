#!/usr/bin/env python3
# Compares whatif.html's computed DOM (chromium --dump-dom) with `scaleplan compare` on the same inputs:
# the text of id="answer" with compare's answer line, and each row of id="options" (cells data-col/data-v)
# with compare's CSV row of the same index (the row's data-i), column by column, as text (the same C prints
# both). With ANSWER.json (compare --answer-json): the page shows exactly the rows its fold leaves (offers of
# the same hardware and time folded into the first, as compare's table), each folded offer named in the row
# it folds into, and the pick's rank marked ">".
#   whatif_dom.py DOM.html COMPARE.csv ANSWER.txt [ANSWER.json]   exit 0 when they agree, 1 with each
#   difference printed
#   whatif_dom.py --split DOM.html DIR   the page's copies at each fragment (tests/lib/whatif_walk.js) into
#   DIR/0.html, DIR/1.html, ...; exit 1 when there are none
# SPDX-License-Identifier: GPL-3.0-or-later
import csv
import html
import json
import os
import re
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.answer, self.rows, self.in_answer, self.in_options = "", [], False, False
        self.index, self.rank, self.folded, self.cell = [], [], [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "answer":
            self.in_answer = True
        if tag == "table" and a.get("id") == "options":
            self.in_options = True
        if self.in_options and tag == "tr":
            self.rows.append({})
            self.index.append(int(a["data-i"]) if "data-i" in a else None)
            self.rank.append("")
            self.folded.append("")
        if self.in_options and tag == "td" and "data-col" in a:
            self.rows[-1][a["data-col"]] = a.get("data-v", "")
        if self.in_options and tag == "td":
            self.cell = a.get("class", "")

    def handle_endtag(self, tag):
        if tag == "p":
            self.in_answer = False
        if tag == "table":
            self.in_options = False

    def handle_data(self, data):
        if self.in_answer:
            self.answer += data
        if self.in_options and self.cell == "rank":
            self.rank[-1] += data
        if self.in_options and self.cell and "folded" in self.cell.split():
            self.folded[-1] += data


def main():
    dom = Dom()
    dom.feed(open(sys.argv[1], encoding="utf-8").read())
    want = list(csv.DictReader(open(sys.argv[2], encoding="utf-8")))
    answer = open(sys.argv[3], encoding="utf-8").read().strip()
    bad = []
    if dom.answer.strip() != answer:
        bad.append("answer differs:\n  page:    %s\n  compare: %s" % (dom.answer.strip(), answer))
    keep = [k for k, r in enumerate(dom.rows) if r]
    rows = [dom.rows[k] for k in keep]
    index = [dom.index[k] for k in keep]
    fold = json.load(open(sys.argv[4], encoding="utf-8"))["fold"] if len(sys.argv) > 4 else [-1] * len(want)
    shown = [i for i, f in enumerate(fold) if f < 0]
    if index != shown:
        bad.append("options: the page shows CSV rows %s, compare's fold leaves %s" % (index, shown))
    ncells = 0
    for i, got in zip(index, rows):
        exp = want[i] if i is not None and i < len(want) else {}
        for col, v in got.items():
            ncells += 1
            if exp.get(col) != v:
                bad.append("row %s %s: page %r, compare %r" % (i, col, v, exp.get(col)))
    for k, i in zip(keep, index):
        if i is None or i >= len(want):
            continue
        if (dom.rank[k].startswith(">")) != (want[i].get("pick") == "1"):
            bad.append("row %d: rank %r but pick %r" % (i, dom.rank[k], want[i].get("pick")))
        for j, f in enumerate(fold):
            if f == i and want[j]["system"] + " " not in dom.folded[k] + " ":
                bad.append("row %d: folded offer %s not named (%r)" % (i, want[j]["system"], dom.folded[k]))
    if ncells == 0:
        bad.append("options: no cells compared")
    for b in bad:
        print(b)
    print("%d rows, %d cells, answer %d characters: %s" % (len(rows), ncells, len(answer), "differ" if bad else "agree"))
    return 1 if bad else 0


def split(dom_path, outdir):
    text = open(dom_path, encoding="utf-8").read()
    n = 0
    for m in re.finditer(r'<textarea class="whatif-snap" data-i="(\d+)">(.*?)</textarea>', text, re.S):
        with open(os.path.join(outdir, m.group(1) + ".html"), "w", encoding="utf-8") as f:
            f.write(html.unescape(m.group(2)))
        n += 1
    return 0 if n else 1


sys.exit(split(sys.argv[2], sys.argv[3]) if sys.argv[1] == "--split" else main())
