#!/usr/bin/env python3
# Compares whatif.html's computed DOM (chromium --dump-dom) with `scaleplan compare` on the same inputs:
# the text of id="answer" with compare's answer line, and each row of id="options" (cells data-col/data-v)
# with compare's CSV row at the same rank, column by column, as text (the same C prints both).
#   whatif_dom.py DOM.html COMPARE.csv ANSWER.txt      exit 0 when they agree, 1 with each difference printed
# SPDX-License-Identifier: GPL-3.0-or-later
import csv
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.answer, self.rows, self.in_answer, self.in_options = "", [], False, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "answer":
            self.in_answer = True
        if tag == "table" and a.get("id") == "options":
            self.in_options = True
        if self.in_options and tag == "tr":
            self.rows.append({})
        if self.in_options and tag == "td" and "data-col" in a:
            self.rows[-1][a["data-col"]] = a.get("data-v", "")

    def handle_endtag(self, tag):
        if tag == "p":
            self.in_answer = False
        if tag == "table":
            self.in_options = False

    def handle_data(self, data):
        if self.in_answer:
            self.answer += data


def main():
    dom = Dom()
    dom.feed(open(sys.argv[1], encoding="utf-8").read())
    want = list(csv.DictReader(open(sys.argv[2], encoding="utf-8")))
    answer = open(sys.argv[3], encoding="utf-8").read().strip()
    bad = []
    if dom.answer.strip() != answer:
        bad.append("answer differs:\n  page:    %s\n  compare: %s" % (dom.answer.strip(), answer))
    rows = [r for r in dom.rows if r]
    if len(rows) != len(want):
        bad.append("options: %d rows on the page, %d from compare" % (len(rows), len(want)))
    ncells = 0
    for i, (got, exp) in enumerate(zip(rows, want)):
        for col, v in got.items():
            ncells += 1
            if exp.get(col) != v:
                bad.append("row %d %s: page %r, compare %r" % (i + 1, col, v, exp.get(col)))
    if ncells == 0:
        bad.append("options: no cells compared")
    for b in bad:
        print(b)
    print("%d rows, %d cells, answer %d characters: %s" % (len(rows), ncells, len(answer), "differ" if bad else "agree"))
    return 1 if bad else 0


sys.exit(main())
