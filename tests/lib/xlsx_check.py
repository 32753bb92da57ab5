#!/usr/bin/env python3
# costs.xlsx's helpers for tests/whatif_xlsx.sh (Python's standard library only):
#   xlsx_check.py count BOOK.xlsx            "FORMULAS OVER_ASSUMPTIONS": formulas in the book, and those that
#                                            read the Assumptions sheet (by sheet name or a name defined on it)
#   xlsx_check.py set BOOK.xlsx NAME VALUE OUT.xlsx   OUT = BOOK with the Assumptions input NAME (a defined
#                                            name) set to VALUE and every formula's stored result removed, so
#                                            that a program that opens OUT must compute every formula itself
#   xlsx_check.py cashflow OPTIONS.csv cashflow.csv report.md   the report's cash flow (its answer's bought
#                                            option) against that option's owned cash by year on the sheet
#   xlsx_check.py compare OPTIONS.csv COMPARE.csv   each option's money (recalculated sheet, exported as CSV)
#                                            against compare's CSV, matched by system, nodes and GPUs per
#                                            node; within 0.1%; exit 1 with each difference printed
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


if __name__ == "__main__":
    if sys.argv[1] == "count":
        count(sys.argv[2])
    elif sys.argv[1] == "set":
        set_input(*sys.argv[2:6])
    elif sys.argv[1] == "cashflow":
        sys.exit(cashflow(*sys.argv[2:5]))
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
