/* web/web_calc_internal.h: a small in-memory spreadsheet for costs.xlsx - its cells as written (numbers, text,
 * formulas), defined names, and the value of each formula computed as a spreadsheet program would, so that
 * the workbook stores every formula's result (libxlsxwriter's worksheet_write_formula_num/_str) and a
 * previewer that does not recalculate shows compare's figures.
 * The formulas it knows are the ones web_xlsx.c writes: numbers, "strings", A1 and $A$1 references with an
 * optional Sheet! prefix, defined names, + - * / ^ unary -, = <> < > <= >=, and IF, ISNUMBER, N, MAX, MIN,
 * CEILING, ROUNDUP, AND, OR, NOT. An empty cell reads as 0 in arithmetic and is not a number to ISNUMBER;
 * text in arithmetic, an unknown function or name, a reference cycle or a division by zero is an error
 * value, which xc_value reports (kind XC_ERR) rather than guess.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef WEB_CALC_INTERNAL_H
#define WEB_CALC_INTERNAL_H

enum { XC_TEXT_MAX = 32 }; /* text a formula yields ("", "never"): longer text is cut, it is never read back */

typedef enum xc_kind { XC_EMPTY, XC_NUM, XC_TEXT, XC_ERR } xc_kind;
typedef struct xc_val {
	xc_kind kind;
	double num;
	char text[XC_TEXT_MAX];
} xc_val;

typedef struct xc_book xc_book;

/* A book of nsheets sheets named names[i] (as formulas name them: "Assumptions!B2"). */
xc_book *xc_new(int nsheets, const char *const *names);
void xc_free(xc_book *b);
/* Cells (zero-based row and column); a later call replaces the cell. The formula text starts with '='. */
void xc_set_num(xc_book *b, int sheet, int row, int col, double v);
void xc_set_text(xc_book *b, int sheet, int row, int col, const char *s);
void xc_set_formula(xc_book *b, int sheet, int row, int col, const char *formula);
/* A defined name for one cell. */
void xc_define(xc_book *b, const char *name, int sheet, int row, int col);
/* The cell's value: a formula computed (once; the cells it reads first). */
xc_val xc_value(xc_book *b, int sheet, int row, int col);

#endif
