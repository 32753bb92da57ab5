/* report/ (report.c): the documents written from a question's placements - both documents complete, one
 * breakdown row per option, text escaped in HTML, a chart that cannot be drawn noted in both, a folder that
 * cannot be written an error with its reason, and the folder removed on request.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "report/report.h"
#include "tests/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"

/* Two GPU counts on two systems, as `report --systems dgxh100,dgxa100-80g --gpus 8,16` places them. */
static int place(test_ctx *t, const hw_db *db, const plan_spec *sp, const model_params *p, const plan_question *q,
		 plan_option **rows, int *nrows, rep_group *g)
{
	const hw_system *cand[4];
	int ncand = 0, cap = 0, net = 0, whole = 0;
	char unknown[64];
	int rc = plan_candidates(db, q, "dgxh100,dgxa100-80g", cand, 4, &ncand, unknown, sizeof unknown);
	TEST_CHECK(t, rc == 0 && ncand == 2, "candidates: %d %s", rc, err_msg());
	static const int gpus[] = {8, 16};
	for (int k = 0; k < 2; k++) {
		g[k].gpus = gpus[k];
		g[k].first = *nrows;
		rc = plan_placements(db, sp, p, q, cand, ncand, gpus[k], rows, nrows, &cap, &net, &whole);
		TEST_CHECK(t, rc == 0, "placements: %s", err_msg());
		g[k].n = *nrows - g[k].first;
		plan_options_sort(q, *rows + g[k].first, g[k].n);
	}
	return *nrows;
}

static void test_docs(test_ctx *t)
{
	hw_db db;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "database");
	model_params p;
	model_params_default(&p);
	plan_spec sp;
	plan_spec_init(&sp);
	plan_question q;
	plan_question_init(&q);
	plan_option *rows = NULL;
	int nrows = 0;
	rep_group g[2];
	if (place(t, &db, &sp, &p, &q, &rows, &nrows, g) < 2)
		return;
	char dir[] = "/tmp/test_report_XXXXXX";
	TEST_CHECK(t, mkdtemp(dir) != NULL, "mkdtemp");
	rep_input in = {.cmdline = "scaleplan report --out <a&b>", .db = &db, .spec = &sp, .params = &p, .q = &q,
			.rows = rows, .nrows = nrows, .g = g, .ng = 2, .placements_csv = "/nonexistent/placements.csv"};
	rep_made *m = xcalloc(1, sizeof *m);
	rep_charts(dir, &in, m);
	/* no table to draw from: no chart, and the reason says which file */
	TEST_CHECK(t, !m->tta_ok && strstr(m->tta_note, "/nonexistent/placements.csv"), "tta note: %s", m->tta_note);
	TEST_CHECK(t, rep_docs(dir, &in, m) == 0, "rep_docs: %s", err_msg());
	char *mdp = xasprintf("%s/report.md", dir), *htp = xasprintf("%s/index.html", dir);
	char *md = NULL, *html = NULL;
	size_t n_B;
	file_read_all(mdp, &md, &n_B);
	file_read_all(htp, &html, &n_B);
	TEST_CHECK(t, md && html, "both documents written");
	if (md && html) {
		TEST_CHECK(t, strncmp(html, "<!DOCTYPE html>", 15) == 0 && strstr(html, "</body>\n</html>\n"), "html whole");
		char want[96];
		snprintf(want, sizeof want, "<table id=\"breakdown\" data-expected-rows=\"%d\">", nrows);
		TEST_CHECK(t, strstr(html, want) != NULL, "one breakdown row per option (%d)", nrows);
		TEST_CHECK(t, strstr(html, "--out &lt;a&amp;b&gt;") && !strstr(html, "<a&b>"), "command line escaped in HTML");
		TEST_CHECK(t, strstr(md, "--out &lt;a&amp;b>") != NULL, "command line neutralised in Markdown");
		TEST_CHECK(t, strstr(md, "No time-to-accuracy chart: ") && strstr(html, "No time-to-accuracy chart: "),
			   "the missing chart noted in both");
		TEST_CHECK(t, strstr(md, "## Cash flow") && strstr(md, "## Files"), "sections present");
	}
	free(md);
	free(html);
	/* a folder that is not there: an environment error naming it, nothing written */
	char *gone = xasprintf("%s/none", dir);
	int rc = rep_docs(gone, &in, m);
	TEST_CHECK(t, rc == ERR_ENV && strstr(err_msg(), "cannot write in") && strstr(err_msg(), gone), "missing: %d %s",
		   rc, err_msg());
	rep_remove_dir(dir);
	TEST_CHECK(t, access(dir, F_OK) != 0 && access(mdp, F_OK) != 0, "folder removed");
	free(gone);
	free(mdp);
	free(htp);
	free(m);
	free(rows);
	hw_db_free(&db);
}

int main(void)
{
	test_ctx t = {0};
	test_docs(&t);
	return test_report(&t);
}
