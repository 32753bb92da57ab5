#!/usr/bin/env python3
# costs.xlsx's helpers for tests/whatif_xlsx.sh (Python's standard library only):
#   xlsx_check.py count BOOK.xlsx            "FORMULAS OVER_ASSUMPTIONS": formulas in the book, and those that
#                                            read the Assumptions sheet (by sheet name or a name defined on it)
#   xlsx_check.py set BOOK.xlsx NAME VALUE OUT.xlsx   OUT = BOOK with the Assumptions input NAME (a defined
#                                            name) set to VALUE and every formula's stored result removed, so
#                                            that a program that opens OUT must compute every formula itself
#   xlsx_check.py cashflow OPTIONS.csv cashflow.csv report.md   the report's cash flow (its answer's bought
#                                            option) against that option's owned cash by year on the sheet
#   xlsx_check.py cash_sheet CASHFLOW.csv cashflow.csv   the Cash flow sheet recalculated (exported as CSV):
#                                            each year's owned cash and rented cost against report's
#                                            cashflow.csv, within 0.1%
#   xlsx_check.py stored BOOK.xlsx OPTIONS.csv   the Options sheet as the book stores it (each formula's saved
#                                            result, no recalculation) written as CSV for compare; exit 1 where
#                                            a formula cell stores no value
#   xlsx_check.py once BOOK.xlsx               each price once: every system's servers capex on every Options row
#                                            reads one Assumptions cell, and each system id is on one row there
#   xlsx_check.py sheets BOOK.xlsx cashflow.csv report.md COMPARE.csv   the Cash flow sheet's stored owned and
#                                            rented cash by year against report's cashflow.csv, and the
#                                            Sensitivity sheet's crossing at the rate itself against compare's
#                                            breakeven_use of the same option, within 0.1%
#   xlsx_check.py compare OPTIONS.csv COMPARE.csv   each option's money (recalculated sheet, exported as CSV)
#                                            against compare's CSV, matched by system, nodes and GPUs per
#                                            node; within 0.1%; exit 1 with each difference printed
#   xlsx_check.py rows OPTIONS.csv GPUS OUT.csv   the rows of OPTIONS.csv at that GPU count (column GPUs)
#   xlsx_check.py batch CHECKS.txt            each line "MESSAGE<TAB>COMMAND<TAB>ARG..." (a command above but
#                                            count) run in order in this one process (a start of Python costs
#                                            more than most checks); "FAIL: MESSAGE" for each that fails, exit 1
# SPDX-License-Identifier: GPL-3.0-or-later
import csv
import re
import sys
import zipfile

# Options sheet heading -> compare's CSV column (web/web_xlsx.c names both)
MONEY = {
    "servers capex USD": "capex_servers_usd", "compute fabric capex USD": "capex_fabric_usd",
    "front-end, storage and management networks capex USD": "capex_frontend_usd",
    "network capex USD": "capex_network_usd", "shared store capex USD": "capex_storage_usd",
    "racks and power distribution capex USD": "capex_racks_usd", "liquid cooling capex USD": "capex_cooling_usd",
    "installation capex USD": "capex_install_usd", "capex USD": "capex_usd", "capex, low end USD": "capex_lo_usd",
    "capex, high end USD": "capex_hi_usd", "energy per run USD (at the meter)": "energy_usd",
    "owner's cost per run USD": "tco_usd", "owner's cost per run, low end USD": "tco_lo_usd",
    "owner's cost per run, high end USD": "tco_hi_usd", "support per run USD": "support_usd",
    "facility per run USD": "facility_usd", "owner's cost per GPU-hour USD": "owned_usd_per_gpu_hour",
    "rented run's start-up and data copy s": "rent_setup_s", "rent per run USD": "rent_usd",
    "rent per run at the market's rate (low end) USD": "rent_lo_usd", "rent per run, high end USD": "rent_hi_usd",
    "owning and renting cost the same, runs a month": "breakeven_runs_per_month",
    "buying wins above that (1), below it (0: a reservation)": "buy_wins_above",
    "owning and renting cost the same at this use": "breakeven_use",
    "a month owned at this use USD": "owned_month_usd", "the same month rented USD": "rented_month_usd",
    "the rental rate at which they cost the same at this use USD per GPU-hour": "flip_usd_per_gpu_hour",
    "kg CO2e per run (energy at the meter x grid)": "co2_kg",
}


def sheets(book):
    with zipfile.ZipFile(book) as z:
        return {n: z.read(n).decode("utf-8") for n in z.namelist()}


def defined_names(files):
    return re.findall(r'<definedName name="([^"]+)">Assumptions!', files["xl/workbook.xml"])


def count(book):
    files = sheets(book)
    names = defined_names(files)
    formulas = []
    for n, text in files.items():
        if n.startswith("xl/worksheets/sheet"):
            formulas += re.findall(r"<f>(.*?)</f>", text)
    over = [f for f in formulas if "Assumptions!" in f or any(re.search(r"\b%s\b" % re.escape(m), f) for m in names)]
    print(len(formulas), len(over))


def set_input(book, name, value, out):
    files = sheets(book)
    m = re.search(r'<definedName name="%s">Assumptions!\$([A-Z]+)\$(\d+)</definedName>' % re.escape(name),
                  files["xl/workbook.xml"])
    if not m:
        sys.exit("no input named %s" % name)
    cell = m.group(1) + m.group(2)
    sheet = "xl/worksheets/sheet1.xml"  # Assumptions is the first sheet
    new, n = re.subn(r'(<c r="%s"[^>]*>)<v>[^<]*</v>' % cell, r"\g<1><v>%s</v>" % value, files[sheet])
    if n != 1:
        sys.exit("cell %s of %s not found" % (cell, name))
    files[sheet] = new
    for k in files:
        if k.startswith("xl/worksheets/sheet"):
            files[k] = re.sub(r"(<f>.*?</f>)<v>[^<]*</v>", r"\1", files[k])
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in files.items():
            z.writestr(k, v)


def compare(options, want):
    key = lambda r, s, n, g: (r[s], r[n], r[g])
    exp = {key(r, "system", "nodes", "gpus_per_node"): r for r in csv.DictReader(open(want, encoding="utf-8"))}
    bad, checked = [], 0
    for r in csv.DictReader(open(options, encoding="utf-8")):
        e = exp.get(key(r, "system", "nodes", "GPUs per node"))
        if e is None:
            bad.append("option %s %sx%s not in compare's CSV" % (r["system"], r["nodes"], r["GPUs per node"]))
            continue
        for head, col in MONEY.items():
            got, ref = r[head], e[col]
            if ref in ("", "nan", "inf") or got in ("", "never"):
                if (ref in ("", "nan")) != (got == "") or (ref == "inf") != (got == "never"):
                    bad.append("%s %s: sheet %r, compare %r" % (r["system"], col, got, ref))
                continue
            checked += 1
            g, x = float(got), float(ref)
            if abs(g - x) > 1e-3 * abs(x) + 1e-9:
                bad.append("%s %sx%s %s: sheet %.6g, compare %.6g (%+.3f%%)" % (
                    r["system"], r["nodes"], r["GPUs per node"], col, g, x, 100 * (g - x) / x))
    for b in bad:
        print(b)
    print("%d costs checked: %s" % (checked, "differ" if bad else "all within 0.1%"))
    return 1 if bad or checked == 0 else 0


def cashflow(options, flows, report):
    """The report's cashflow.csv (the answer's bought option, named in report.md's Cash flow section) against
    that option's owned cash by year and its discounted sum on the recalculated sheet."""
    m = re.search(r"Owning (\S+) (\d+)x(\d+) for", open(report, encoding="utf-8").read())
    if not m:
        print("no Cash flow section in %s" % report)
        return 1
    rows = [r for r in csv.DictReader(open(options, encoding="utf-8"))
            if (r["system"], r["nodes"], r["GPUs per node"]) == m.groups()]
    years = list(csv.DictReader(open(flows, encoding="utf-8")))
    if len(rows) != 1 or not years:
        print("%s: %d sheet rows, %d years" % (" ".join(m.groups()), len(rows), len(years)))
        return 1
    r, bad = rows[0], []
    want = [(y["year"], float(y["owned_usd"])) for y in years]
    want.append(("discounted", float(years[-1]["owned_pv_cum_usd"])))
    for year, x in want:
        head = ("owned cash year %s USD" % year if year != "discounted"
                else "owned cash over the life, discounted at the cost of capital USD")
        g = float(r[head])
        if abs(g - x) > 1e-3 * abs(x) + 1e-6:
            bad.append("%s cash %s: sheet %.6g, cashflow.csv %.6g" % (m.group(1), year, g, x))
    after = "owned cash year %d USD" % len(years)
    if after in r and r[after] != "":
        bad.append("%s cash year %d: sheet %r, cashflow.csv has no such year" % (m.group(1), len(years), r[after]))
    for b in bad:
        print(b)
    print("%s %sx%s: %d years and the discounted sum against cashflow.csv: %s" % (
        m.group(1), m.group(2), m.group(3), len(years), "differ" if bad else "all within 0.1%"))
    return 1 if bad else 0


def col_index(letters):
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def stored(book, out):
    """The Options sheet (the second) from the stored values alone: shared strings, inline formula text
    results (t="str") and numbers; a formula without <v> is counted as missing."""
    files = sheets(book)
    shared = [re.sub(r"<[^>]+>", "", si) for si in re.findall(r"<si>(.*?)</si>", files.get("xl/sharedStrings.xml", ""), re.S)]
    text = files["xl/worksheets/sheet2.xml"]
    rows, missing = {}, 0
    for r, attrs, body in re.findall(r'<c r="([A-Z]+\d+)"([^>]*?)(?:/>|>(.*?)</c>)', text, re.S):
        m = re.match(r"([A-Z]+)(\d+)", r)
        col, row = col_index(m.group(1)), int(m.group(2)) - 1
        v = re.search(r"<v>(.*?)</v>", body or "")
        if "<f>" in (body or "") and not v:
            missing += 1
        val = v.group(1) if v else ""
        if 't="s"' in attrs and v:
            val = shared[int(val)]
        rows.setdefault(row, {})[col] = val.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    ncol = max(max(c) for c in rows.values()) + 1
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        for row in sorted(rows):
            w.writerow([rows[row].get(c, "") for c in range(ncol)])
    formulas = sum(len(re.findall(r"<f>", t)) for n, t in files.items() if n.startswith("xl/worksheets/sheet"))
    print("%d formulas, %d without a stored value" % (formulas, missing))
    return 1 if missing else 0


def once(book):
    files = sheets(book)
    shared = [re.sub(r"<[^>]+>", "", si) for si in re.findall(r"<si>(.*?)</si>", files.get("xl/sharedStrings.xml", ""), re.S)]
    def cells(name):
        out = {}
        for r, attrs, body in re.findall(r'<c r="([A-Z]+\d+)"([^>]*?)(?:/>|>(.*?)</c>)', files[name], re.S):
            f = re.search(r"<f>(.*?)</f>", body or "")
            v = re.search(r"<v>(.*?)</v>", body or "")
            val = shared[int(v.group(1))] if v and 't="s"' in attrs else (v.group(1) if v else "")
            out[r] = (f.group(1) if f else None, val)
        return out
    op, asm = cells("xl/worksheets/sheet2.xml"), cells("xl/worksheets/sheet1.xml")
    head = {v: re.match(r"[A-Z]+", k).group(0) for k, (f, v) in op.items() if re.match(r"[A-Z]+1$", k)}
    sc, cc = head["system"], head["servers capex USD"]
    bad, seen = [], {}
    for k, (f, v) in op.items():
        m = re.match(r"%s(\d+)$" % sc, k)
        if not m or m.group(1) == "1":
            continue
        fx = op.get(cc + m.group(1), (None, ""))[0] or ""
        ref = re.findall(r"Assumptions!\$?([A-Z]+\$?\d+)", fx)
        seen.setdefault(v, set()).add(tuple(ref))
    for s_, refs in seen.items():
        if len(refs) != 1:
            bad.append("%s: its rows read the unit price from %d places %s" % (s_, len(refs), sorted(refs)))
    # the systems' block only (the rentals block after it names rented systems again, with their rate)
    end = min([int(k[1:]) for k, (f, v) in asm.items() if re.match(r"B\d+$", k) and v.startswith("rented system")]
              or [10 ** 9])
    ids = [v for k, (f, v) in asm.items() if re.match(r"B\d+$", k) and int(k[1:]) < end and v in seen]
    for s_ in set(ids):
        if ids.count(s_) > 1:
            bad.append("%s: listed %d times on Assumptions" % (s_, ids.count(s_)))
    for b in bad:
        print(b)
    print("%d systems: each price %s" % (len(seen), "NOT once" if bad else "once"))
    return 1 if bad or not seen else 0


def stored_grid(files, name):
    """{(row, col): value} of a sheet's stored values (zero-based), shared strings resolved."""
    shared = [re.sub(r"<[^>]+>", "", si) for si in re.findall(r"<si>(.*?)</si>", files.get("xl/sharedStrings.xml", ""), re.S)]
    grid = {}
    for r, attrs, body in re.findall(r'<c r="([A-Z]+\d+)"([^>]*?)(?:/>|>(.*?)</c>)', files[name], re.S):
        m = re.match(r"([A-Z]+)(\d+)", r)
        v = re.search(r"<v>(.*?)</v>", body or "")
        val = v.group(1) if v else ""
        if 't="s"' in attrs and v:
            val = shared[int(val)]
        grid[(int(m.group(2)) - 1, col_index(m.group(1)))] = val
    return grid


def sheets_check(book, flows, report, want):
    files = sheets(book)
    cf, se = stored_grid(files, "xl/worksheets/sheet3.xml"), stored_grid(files, "xl/worksheets/sheet4.xml")
    head = {v: c for (r, c), v in cf.items() if r == 2}
    bad, n = [], 0
    for y in csv.DictReader(open(flows, encoding="utf-8")):
        row = 3 + int(y["year"])
        for h, col in (("owned cash USD", "owned_usd"), ("rented USD (the same runs)", "rented_usd")):
            g, x = float(cf.get((row, head[h]), "nan") or "nan"), float(y[col])
            n += 1
            if not abs(g - x) <= 1e-3 * abs(x) + 1e-6:
                bad.append("cash flow year %s %s: sheet %.6g, cashflow.csv %.6g" % (y["year"], col, g, x))
    m = re.search(r"Owning (\S+) (\d+)x(\d+) for", open(report, encoding="utf-8").read())
    e = [r for r in csv.DictReader(open(want, encoding="utf-8"))
         if m and (r["system"], r["nodes"], r["gpus_per_node"]) == m.groups()]
    last = max(r for (r, c) in se)
    g = float(se.get((last, 5), "nan") or "nan")  # column F: 1.0 x the rate
    if not e or e[0]["breakeven_use"] in ("", "nan"):
        bad.append("no breakeven_use for the report's option in %s" % want)
    elif not abs(g - float(e[0]["breakeven_use"])) <= 1e-3 * float(e[0]["breakeven_use"]):
        bad.append("sensitivity crossing %.6g, compare's breakeven_use %s" % (g, e[0]["breakeven_use"]))
    for b in bad:
        print(b)
    print("Cash flow (%d figures) and Sensitivity's crossing: %s" % (n, "differ" if bad else "all within 0.1%"))
    return 1 if bad or n == 0 else 0


def cash_sheet(sheet, flows):
    """The Cash flow sheet recalculated (exported as CSV) against report's cashflow.csv: each year's owned cash
    and rented cost (the rent falling with the market year by year) within 0.1%; the rented column must hold
    money in some year (a rental weighed), and no year past cashflow.csv's may hold a figure."""
    grid = list(csv.reader(open(sheet, encoding="utf-8")))
    at = next(i for i, r in enumerate(grid) if r and r[0] == "year")
    head = {h: c for c, h in enumerate(grid[at])}
    years = list(csv.DictReader(open(flows, encoding="utf-8")))
    bad, rented = [], 0.0
    for y in years:
        r = grid[at + 1 + int(y["year"])]
        for h, col in (("owned cash USD", "owned_usd"), ("rented USD (the same runs)", "rented_usd")):
            x = float(y[col])
            try:
                g = float(r[head[h]])
            except ValueError:
                g = float("nan")
            if not abs(g - x) <= 1e-3 * abs(x) + 1e-6:
                bad.append("cash flow year %s %s: sheet %.6g, cashflow.csv %.6g" % (y["year"], col, g, x))
        rented += abs(float(y["rented_usd"]))
    if rented == 0:
        bad.append("cashflow.csv rents nothing: the rented column is not checked")
    after = grid[at + 1 + len(years)] if len(grid) > at + 1 + len(years) else []
    if any(v != "" for v in after[1:]):
        bad.append("cash flow year %d: sheet %r, cashflow.csv has no such year" % (len(years), after))
    for b in bad:
        print(b)
    print("Cash flow sheet, %d years owned and rented against cashflow.csv: %s" % (
        len(years), "differ" if bad else "all within 0.1%"))
    return 1 if bad else 0


def rows(options, gpus, out):
    table = list(csv.reader(open(options, encoding="utf-8")))
    with open(out, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([table[0]] + [r for r in table[1:] if r[table[0].index("GPUs")] == gpus])
    return 0


COMMANDS = {
    "set": lambda a: set_input(*a[:4]),
    "sheets": lambda a: sheets_check(*a[:4]),
    "once": lambda a: once(a[0]),
    "stored": lambda a: stored(a[0], a[1]),
    "cashflow": lambda a: cashflow(*a[:3]),
    "cash_sheet": lambda a: cash_sheet(a[0], a[1]),
    "compare": lambda a: compare(a[0], a[1]),
    "rows": lambda a: rows(*a[:3]),
}


def batch(path):
    bad = 0
    for line in open(path, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        try:
            rc = COMMANDS[f[1]](f[2:])
        except SystemExit as e:  # set's refusals
            print(e.code)
            rc = 1
        except Exception as e:  # a file a command before should have written: this check fails, not all
            print("%s: %s" % (type(e).__name__, e))
            rc = 1
        if rc:
            print("FAIL: " + f[0])
            bad = 1
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "count":
        count(sys.argv[2])
    elif sys.argv[1] == "batch":
        sys.exit(batch(sys.argv[2]))
    else:
        sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))
