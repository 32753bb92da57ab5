/* web/web_calc.c: the in-memory spreadsheet behind costs.xlsx's stored results (web_calc_internal.h).
 * A formula is read by recursive descent and computed as it is read (a branch IF does not take is read
 * with evaluation off, so that it reads no cell). Precedence as in spreadsheet programs: comparison, then
 * + -, then * /, then ^, then unary minus (so -2^2 is 4), then a number, text, reference, name, function
 * or parenthesis.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "web/web_calc_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"

typedef enum { CELL_EMPTY, CELL_NUM, CELL_TEXT, CELL_FORMULA } cell_kind;
typedef struct cell {
	cell_kind kind;
	double num;
	char *text;      /* CELL_TEXT: the text; CELL_FORMULA: the formula */
	int state;       /* formula: 0 not computed, 1 computing (a cycle if met again), 2 done */
	xc_val value;
} cell;

typedef struct xc_sheet {
	char *name;
	cell *cells;     /* rows x cols, row-major */
	int rows, cols;
} xc_sheet;

typedef struct name_ref { char *name; int sheet, row, col; } name_ref;

struct xc_book {
	xc_sheet *sheets;
	int nsheets;
	name_ref *names;
	int nnames, names_cap;
};

xc_book *xc_new(int nsheets, const char *const *names)
{
	xc_book *b = xcalloc(1, sizeof *b);
	b->sheets = xcalloc((size_t)nsheets, sizeof *b->sheets);
	b->nsheets = nsheets;
	for (int i = 0; i < nsheets; i++)
		b->sheets[i].name = xstrdup(names[i]);
	return b;
}

static void cell_clear(cell *c)
{
	free(c->text);
	memset(c, 0, sizeof *c);
}

void xc_free(xc_book *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->nsheets; i++) {
		xc_sheet *s = &b->sheets[i];
		for (int k = 0; k < s->rows * s->cols; k++)
			free(s->cells[k].text);
		free(s->cells);
		free(s->name);
	}
	for (int i = 0; i < b->nnames; i++)
		free(b->names[i].name);
	free(b->names);
	free(b->sheets);
	free(b);
}

/* The cell at (row, col), the sheet grown to hold it. */
static cell *cell_at(xc_book *b, int si, int row, int col)
{
	xc_sheet *s = &b->sheets[si];
	if (row >= s->rows || col >= s->cols) {
		int rows = row >= s->rows ? row + 1 + s->rows : s->rows, cols = col >= s->cols ? col + 1 + s->cols / 2 : s->cols;
		cell *n = xcalloc((size_t)rows * (size_t)cols, sizeof *n);
		for (int r = 0; r < s->rows; r++)
			memcpy(&n[(size_t)r * cols], &s->cells[(size_t)r * s->cols], (size_t)s->cols * sizeof *n);
		free(s->cells);
		s->cells = n;
		s->rows = rows;
		s->cols = cols;
	}
	return &s->cells[(size_t)row * s->cols + col];
}

void xc_set_num(xc_book *b, int sheet, int row, int col, double v)
{
	cell *c = cell_at(b, sheet, row, col);
	cell_clear(c);
	c->kind = CELL_NUM;
	c->num = v;
}

void xc_set_text(xc_book *b, int sheet, int row, int col, const char *s)
{
	cell *c = cell_at(b, sheet, row, col);
	cell_clear(c);
	c->kind = CELL_TEXT;
	c->text = xstrdup(s);
}

void xc_set_formula(xc_book *b, int sheet, int row, int col, const char *formula)
{
	cell *c = cell_at(b, sheet, row, col);
	cell_clear(c);
	c->kind = CELL_FORMULA;
	c->text = xstrdup(formula);
}

void xc_define(xc_book *b, const char *name, int sheet, int row, int col)
{
	if (b->nnames == b->names_cap) {
		b->names_cap = b->names_cap ? 2 * b->names_cap : 32;
		b->names = xrealloc(b->names, (size_t)b->names_cap * sizeof *b->names);
	}
	b->names[b->nnames++] = (name_ref){xstrdup(name), sheet, row, col};
}

/* ---- values ---- */

static xc_val num_v(double v)
{
	xc_val x = {.kind = isfinite(v) ? XC_NUM : XC_ERR, .num = v};
	return x;
}

static xc_val err_v(void)
{
	xc_val x = {.kind = XC_ERR};
	return x;
}

static xc_val text_v(const char *s, size_t n)
{
	xc_val x = {.kind = XC_TEXT};
	snprintf(x.text, sizeof x.text, "%.*s", (int)n, s);
	return x;
}

/* A value as a number in arithmetic: empty 0; text and errors an error (*ok false). */
static double as_num(xc_val v, bool *ok)
{
	if (v.kind == XC_NUM)
		return v.num;
	if (v.kind == XC_EMPTY)
		return 0.0;
	*ok = false;
	return NAN;
}

/* ---- the parser ---- */

typedef struct parse {
	xc_book *b;
	const char *p;
	bool eval;   /* false: read only (a branch not taken) */
	bool bad;    /* a syntax error: the whole formula is an error */
	int sheet;   /* the formula's own sheet (a reference without Sheet!) */
} parse;

static xc_val expr(parse *x);

static void skip_ws(parse *x)
{
	while (*x->p == ' ')
		x->p++;
}

static bool eat(parse *x, char ch)
{
	skip_ws(x);
	if (*x->p != ch)
		return false;
	x->p++;
	return true;
}

static int sheet_of(const xc_book *b, const char *name, size_t n)
{
	for (int i = 0; i < b->nsheets; i++)
		if (strlen(b->sheets[i].name) == n && strncmp(b->sheets[i].name, name, n) == 0)
			return i;
	return -1;
}

/* "$AB$12" at s into zero-based row and column; the characters read, 0 if none. */
static int a1(const char *s, int *row, int *col)
{
	const char *p = s;
	int c = 0, r = 0, nl = 0, nd = 0;
	if (*p == '$')
		p++;
	while (isupper((unsigned char)*p) && nl < 3)
		c = c * 26 + (*p++ - 'A' + 1), nl++;
	if (*p == '$')
		p++;
	while (isdigit((unsigned char)*p))
		r = r * 10 + (*p++ - '0'), nd++;
	if (!nl || !nd || isalnum((unsigned char)*p) || *p == '_')
		return 0;
	*row = r - 1;
	*col = c - 1;
	return (int)(p - s);
}

static xc_val cell_value(xc_book *b, int si, int row, int col)
{
	const xc_sheet *s = &b->sheets[si];
	if (row < 0 || col < 0 || row >= s->rows || col >= s->cols)
		return (xc_val){.kind = XC_EMPTY};
	return xc_value(b, si, row, col);
}

/* The arguments of a function after its '(' into v (at most max, the rest read and dropped); the count. */
static int args(parse *x, xc_val *v, int max)
{
	int n = 0;
	if (eat(x, ')'))
		return 0;
	do {
		xc_val a = expr(x);
		if (n < max)
			v[n] = a;
		n++;
	} while (eat(x, ','));
	if (!eat(x, ')'))
		x->bad = true;
	return n < max ? n : max;
}

/* IF(c, a, b): only the branch taken is computed. */
static xc_val fn_if(parse *x)
{
	xc_val c = expr(x), r = {.kind = XC_NUM, .num = 0};
	bool ok = true, was = x->eval;
	double t = as_num(c, &ok);
	if (!eat(x, ','))
		x->bad = true;
	x->eval = was && ok && t != 0;
	xc_val a = expr(x);
	x->eval = was && ok && t == 0;
	xc_val e = eat(x, ',') ? expr(x) : r;
	x->eval = was;
	if (!eat(x, ')'))
		x->bad = true;
	if (!ok)
		return err_v();
	return t != 0 ? a : e;
}

/* MAX and MIN: over numbers; empty and text arguments are left out (as a spreadsheet leaves out empty and
 * text cells in a list); none: 0. */
static xc_val fn_extreme(const xc_val *v, int n, bool max)
{
	double r = NAN;
	for (int i = 0; i < n; i++) {
		if (v[i].kind == XC_ERR)
			return err_v();
		if (v[i].kind == XC_NUM && (isnan(r) || (max ? v[i].num > r : v[i].num < r)))
			r = v[i].num;
	}
	return num_v(isnan(r) ? 0.0 : r);
}

static xc_val call(parse *x, const char *name, size_t n)
{
	if (n == 2 && strncmp(name, "IF", 2) == 0)
		return fn_if(x);
	xc_val v[16];
	int k = args(x, v, 16);
	bool ok = true;
	if (!x->eval)
		return num_v(0);
#define IS(s) (n == sizeof(s) - 1 && strncmp(name, s, n) == 0)
	if (IS("ISNUMBER"))
		return num_v(k == 1 && v[0].kind == XC_NUM);
	if (IS("N"))
		return num_v(k == 1 && v[0].kind == XC_NUM ? v[0].num : 0.0);
	if (IS("MAX") || IS("MIN"))
		return fn_extreme(v, k, IS("MAX"));
	if (IS("NOT") && k == 1) {
		double a = as_num(v[0], &ok);
		return ok ? num_v(a == 0) : err_v();
	}
	if (IS("AND") || IS("OR")) {
		bool all = true, any = false;
		for (int i = 0; i < k; i++) {
			double a = as_num(v[i], &ok);
			all = all && a != 0;
			any = any || a != 0;
		}
		return ok ? num_v(IS("AND") ? all : any) : err_v();
	}
	if ((IS("CEILING") || IS("ROUNDUP")) && k == 2) {
		double a = as_num(v[0], &ok), s = as_num(v[1], &ok);
		if (!ok)
			return err_v();
		if (IS("CEILING")) /* to a multiple of s */
			return s == 0 ? num_v(0) : num_v(ceil(a / s) * s);
		double m = pow(10.0, s); /* away from zero at s decimals */
		return num_v(a >= 0 ? ceil(a * m - 1e-9) / m : -ceil(-a * m - 1e-9) / m);
	}
#undef IS
	return err_v();
}

/* A name, a reference (Sheet!A1) or a function call at an identifier. */
static xc_val ident(parse *x)
{
	const char *s = x->p;
	while (isalnum((unsigned char)*x->p) || *x->p == '_' || *x->p == '.' || *x->p == '$')
		x->p++;
	size_t n = (size_t)(x->p - s);
	int si = x->sheet, row, col, used;
	if (*x->p == '(') {
		x->p++;
		return call(x, s, n);
	}
	if (*x->p == '!') { /* Sheet!A1 */
		si = sheet_of(x->b, s, n);
		s = ++x->p;
		used = si >= 0 ? a1(s, &row, &col) : 0;
		if (!used) {
			x->bad = true;
			return err_v();
		}
		x->p += used;
		return x->eval ? cell_value(x->b, si, row, col) : num_v(0);
	}
	used = a1(s, &row, &col);
	if (used == (int)n)
		return x->eval ? cell_value(x->b, si, row, col) : num_v(0);
	for (int i = 0; i < x->b->nnames; i++) {
		const name_ref *r = &x->b->names[i];
		if (strlen(r->name) == n && strncmp(r->name, s, n) == 0)
			return x->eval ? cell_value(x->b, r->sheet, r->row, r->col) : num_v(0);
	}
	if (n == 4 && strncasecmp(s, "TRUE", 4) == 0)
		return num_v(1);
	if (n == 5 && strncasecmp(s, "FALSE", 5) == 0)
		return num_v(0);
	return err_v();
}

static xc_val primary(parse *x)
{
	skip_ws(x);
	if (eat(x, '(')) {
		xc_val v = expr(x);
		if (!eat(x, ')'))
			x->bad = true;
		return v;
	}
	if (*x->p == '"') {
		const char *s = ++x->p;
		while (*x->p && *x->p != '"')
			x->p++;
		xc_val v = text_v(s, (size_t)(x->p - s));
		if (*x->p == '"')
			x->p++;
		else
			x->bad = true;
		return v;
	}
	if (isdigit((unsigned char)*x->p) || *x->p == '.') {
		char *end;
		double v = strtod(x->p, &end);
		x->p = end;
		return num_v(v);
	}
	if (isalpha((unsigned char)*x->p) || *x->p == '$' || *x->p == '_')
		return ident(x);
	x->bad = true;
	return err_v();
}

/* Two values through an arithmetic operator. */
static xc_val arith(xc_val a, xc_val b, char op)
{
	bool ok = true;
	double l = as_num(a, &ok), r = as_num(b, &ok);
	if (!ok)
		return err_v();
	switch (op) {
	case '+': return num_v(l + r);
	case '-': return num_v(l - r);
	case '*': return num_v(l * r);
	case '/': return r == 0 ? err_v() : num_v(l / r);
	default: return num_v(pow(l, r));
	}
}

static xc_val unary(parse *x)
{
	if (eat(x, '-'))
		return arith(num_v(0), unary(x), '-');
	if (eat(x, '+'))
		return unary(x);
	return primary(x);
}

static xc_val power(parse *x)
{
	xc_val v = unary(x);
	while (eat(x, '^'))
		v = arith(v, unary(x), '^');
	return v;
}

static xc_val term(parse *x)
{
	xc_val v = power(x);
	for (;;) {
		skip_ws(x);
		char op = *x->p;
		if (op != '*' && op != '/')
			return v;
		x->p++;
		v = arith(v, power(x), op);
	}
}

static xc_val sum(parse *x)
{
	xc_val v = term(x);
	for (;;) {
		skip_ws(x);
		char op = *x->p;
		if (op != '+' && op != '-')
			return v;
		x->p++;
		v = arith(v, term(x), op);
	}
}

/* Comparison: numbers by value (empty as 0), text with text (case-insensitive), a number below any text. */
static xc_val compare(xc_val a, xc_val b, const char *op)
{
	if (a.kind == XC_ERR || b.kind == XC_ERR)
		return err_v();
	bool at = a.kind == XC_TEXT, bt = b.kind == XC_TEXT;
	int c;
	if (at && bt)
		c = strcasecmp(a.text, b.text);
	else if (at || bt) /* an empty cell against text reads as "" */
		c = at ? (b.kind == XC_EMPTY && !*a.text ? 0 : 1) : (a.kind == XC_EMPTY && !*b.text ? 0 : -1);
	else {
		double l = a.kind == XC_NUM ? a.num : 0, r = b.kind == XC_NUM ? b.num : 0;
		c = l < r ? -1 : l > r;
	}
	if (strcmp(op, "=") == 0)
		return num_v(c == 0);
	if (strcmp(op, "<>") == 0)
		return num_v(c != 0);
	if (strcmp(op, "<=") == 0)
		return num_v(c <= 0);
	if (strcmp(op, ">=") == 0)
		return num_v(c >= 0);
	return num_v(op[0] == '<' ? c < 0 : c > 0);
}

static xc_val expr(parse *x)
{
	xc_val v = sum(x);
	for (;;) {
		skip_ws(x);
		char op[3] = {0};
		if (strncmp(x->p, "<>", 2) == 0 || strncmp(x->p, "<=", 2) == 0 || strncmp(x->p, ">=", 2) == 0)
			memcpy(op, x->p, 2);
		else if (*x->p == '=' || *x->p == '<' || *x->p == '>')
			op[0] = *x->p;
		else
			return v;
		x->p += strlen(op);
		v = compare(v, sum(x), op);
	}
}

xc_val xc_value(xc_book *b, int si, int row, int col)
{
	cell *c = cell_at(b, si, row, col);
	switch (c->kind) {
	case CELL_EMPTY: return (xc_val){.kind = XC_EMPTY};
	case CELL_NUM: return num_v(c->num);
	case CELL_TEXT: return text_v(c->text, strlen(c->text));
	case CELL_FORMULA: break;
	}
	if (c->state == 2)
		return c->value;
	if (c->state == 1) /* a reference cycle */
		return err_v();
	c->state = 1;
	char *f = xstrdup(c->text); /* the cells may move while the formula's references are computed */
	parse x = {.b = b, .p = f[0] == '=' ? f + 1 : f, .eval = true, .sheet = si};
	xc_val v = expr(&x);
	skip_ws(&x);
	if (x.bad || *x.p)
		v = err_v();
	if (v.kind == XC_EMPTY) /* a formula that reads an empty cell shows 0 */
		v = num_v(0);
	free(f);
	c = cell_at(b, si, row, col);
	c->value = v;
	c->state = 2;
	return v;
}
