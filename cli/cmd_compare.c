/* cli/cmd_compare.c: `scaleplan compare --gpus N`: every way to place N GPUs on the candidate systems
 * (whole nodes; with --partial-nodes 1 x N ... N x 1 as far as a node holds them), ranked as the question
 * asks (plan_order_text), each with its bottleneck, money and the constraints it fails, then the one
 * decision (plan_decide): fastest, cheapest, best value, scale up vs out for one GPU model, buy vs rent.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

int cli_candidates(cli_scen *s, const char *cmd, const char *systems, const plan_question *q, const hw_system **cand,
		   int max, int *n)
{
	char unknown[256], where[64], list[1024];
	if (systems) { /* "dgxb200, dgxh100" as typed in a shell: the blanks around each id dropped */
		size_t k = 0;
		for (const char *c = systems; *c && k + 1 < sizeof list; c++)
			if (*c != ' ' && *c != '\t')
				list[k++] = *c;
		list[k] = '\0';
		systems = list;
	}
	if (!plan_candidates(&s->db, q, systems, cand, max, n, unknown, sizeof unknown))
		return EXIT_OK;
	snprintf(where, sizeof where, "%s: --systems", cmd);
	if (*unknown)
		return cli_unknown_id(&s->db, where, HW_SYSTEM, unknown);
	fprintf(stderr, "scaleplan %s: %s\n", cmd, err_msg());
	return EXIT_INPUT;
}

int cli_placements(cli_scen *s, const char *cmd, const plan_question *q, const hw_system *const *cand, int ncand,
		   long gpus, plan_option **rows, int *nrows, int *cap, int *skipped_net, int *skipped_whole)
{
	if (plan_placements(&s->db, &s->spec, &s->params, q, cand, ncand, gpus, rows, nrows, cap, skipped_net,
			    skipped_whole)) {
		fprintf(stderr, "scaleplan %s: %s\n", cmd, err_msg());
		return EXIT_INPUT;
	}
	double best_s = INFINITY;
	for (int i = 0; i < *nrows; i++)
		if ((*rows)[i].r.fits && (*rows)[i].r.tta_s < best_s)
			best_s = (*rows)[i].r.tta_s;
	return cli_check_runs_fit(cmd, &s->spec.money, best_s);
}

int cli_no_placement(const char *cmd, long gpus, int skipped_net, int skipped_whole)
{
	fprintf(stderr, "scaleplan %s: no candidate system can hold %ld GPUs", cmd, gpus);
	if (skipped_net)
		fprintf(stderr, ": %d placement%s over several nodes need%s a network between nodes that the database "
				"does not give the system (a test bed, a single server: --fabric ID adds one)", skipped_net,
			skipped_net > 1 ? "s" : "", skipped_net > 1 ? "" : "s");
	if (skipped_whole)
		fprintf(stderr, "%s %d system%s another node size (--partial-nodes offers %s)", skipped_net ? ";" : ":",
			skipped_whole, skipped_whole > 1 ? "s have" : " has", skipped_whole > 1 ? "them" : "it");
	fprintf(stderr, "\n");
	return EXIT_INPUT;
}

static const char *const formats[] = {"table", "csv", NULL};

/* compare's own options; the shared ones and the question's are cli_scen_opts' and cli_ask_opts'. */
enum { CMP_MAX_COUNTS = 16 };
typedef struct cmp_opts {
	const char *systems, *format, *outpath, *answer_json;
	int counts[CMP_MAX_COUNTS], ncounts; /* --gpus: one count, or several decided as one question */
	bool all_rows;
} cmp_opts;

static int opt_gpus(void *ctx, const cli_opt *o, const char *arg)
{
	cmp_opts *co = ctx;
	(void)o;
	if (!strpbrk(arg, ",-:")) { /* one count: its range said */
		long v;
		if (cli_parse_long(arg, 1, CLI_MAX_GPUS, &v)) {
			fprintf(stderr, "scaleplan compare: --gpus '%s': expected an integer 1..%d (or a list: 8,16,32)\n", arg,
				CLI_MAX_GPUS);
			return -1;
		}
		co->counts[0] = (int)v;
		co->ncounts = 1;
		return 0;
	}
	if (cli_parse_int_list("compare", "--gpus", arg, co->counts, CMP_MAX_COUNTS, &co->ncounts))
		return -1;
	for (int i = 0; i < co->ncounts; i++)
		if (co->counts[i] < 1 || co->counts[i] > CLI_MAX_GPUS) {
			fprintf(stderr, "scaleplan compare: --gpus '%s': %d: expected an integer 1..%d\n", arg, co->counts[i],
				CLI_MAX_GPUS);
			return -1;
		}
	return 0;
}

static void compare_table(cmp_opts *co, cli_opt *t)
{
	const cli_opt own[] = {
		CLI_O_CALL("gpus", opt_gpus, co,
			   "  --gpus N        total GPUs (1.." CLI_STR(CLI_MAX_GPUS_N) "); a list (8,16,32,...) is one question:\n"
			   "                  the count is part of each option and the rule picks over all of them;\n"
			   "                  left out with --deadline: the fewest of 8,16,...,1024 at which an option\n"
			   "                  meets it, and the rule's pick at that count\n"),
		CLI_O_STR("systems", &co->systems, "  --systems LIST  candidate systems; " CLI_DEFAULT_SYSTEMS_HELP),
		CLI_O_ENUM("format", &co->format, formats, "table or csv",
			   "  --format F      table (default) or csv;  --out FILE  write the CSV to FILE (atomic)\n"),
		CLI_O_STR("out", &co->outpath, NULL),
		CLI_O_STR("answer-json", &co->answer_json,
			  "  --answer-json FILE  write the answer (pick, alternates, verdicts, what was left out) as JSON\n"),
		CLI_O_FLAG("all-rows", &co->all_rows,
			   "  --all-rows      one row per offer (default: offers of the same hardware and time folded into one)\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void compare_usage(FILE *out)
{
	cmp_opts co;
	cli_opt own[8];
	compare_table(&co, own);
	strbuf b; /* the rule is one sentence of 240 characters: the text wrapped at 200 */
	strbuf_init(&b);
	strbuf_addf(&b,
		"usage: scaleplan compare --gpus N [--systems a,b,c] [--rank-by tta|ttt|cost] [--cost run|capex|tco|rent]\n"
		"                         [--budget USD] [--deadline D] [--partial-nodes] [--format table|csv]\n"
		"                         [--out FILE] [options]\n"
		"       scaleplan compare --deadline D [options]   (the fewest GPUs at which an option meets D)\n"
		"\n"
		"Every way to place N GPUs on each candidate system on whole servers (nodes x the system's GPUs per\n"
		"node; --partial-nodes adds 1xN ... Nx1 as far as a node holds them), ranked, with the bottleneck,\n"
		"software stack and cost of each, then the answer: which to buy or rent, scale up or scale out?\n"
		"\n"
		"The pick (marked > in the table): %s. The cost compared (--cost run, the default) is a run's\n"
		"share of the month of work as its buyer pays it: owned, the owner's month over its runs; rented, the\n"
		"month's rent over the same runs, so buying and renting rank together; a tie goes to the option committing\n"
		"less (capex; a rental commits none), then the name. --budget caps the capex of bought options (rentals\n"
		"are outside it; a budget that excludes nothing changes nothing); --deadline alone asks for the cheapest\n"
		"option that meets it. An option without the price compared is left out.\n",
		PLAN_RULE);
	cli_print_wrapped(out, b.s);
	strbuf_free(&b);
	cli_opt_help(out, own, NULL);
	fprintf(out, "\n");
	cli_ask_help(out, false);
	fprintf(out, "\n");
	cli_scen_help_except(out, "system,gpus-per-node,nodes,global-batch"); /* compare chooses them */
}

/* The table's columns, by the CSV's names (--columns takes the same names for the table and the CSV), with
 * their heading; those marked shown make the default table, within CLI_TABLE_WIDTH characters a line. */
enum { CLI_TABLE_WIDTH = 200 };
static const struct tcol {
	const char *key, *head;
	bool left, shown;
} tcols[] = {
	{"rank", "rank", false, true},
	{"system", "system", true, true},
	{"gpu", "gpu", true, true},
	{"nodes", "nodes", false, true},
	{"precision", "prec", false, false},
	{"batch_per_gpu", "batch", false, false},
	{"global_batch", "global", false, true},
	{"throughput_img_s", "img/s", false, true},
	{"scaling_eff", "scaling", false, true},
	{"comm_s", "comm ms", false, true},
	{"bottleneck", "bottleneck", true, true},
	{"epochs", "epochs", false, true},
	{"ttt_s", "time-to-train", false, false},
	{"tta_s", "time-to-acc (90%)", true, true},
	{"capex_usd", "capex", false, true},
	{"rent_usd", "rent/run", false, true},
	{"tco_usd", "tco/run", false, true},
	{"idle_gpus", "idle", false, true},
	{"basis", "basis", true, true},
	{"meets", "meets", true, true},
	{"stack", "stack (data path)", true, false},
};
enum { NTCOLS = sizeof tcols / sizeof tcols[0] };

/* The cell of column c for option w ranked `rank` (">4" marks the pick) into buf. */
static void tcell(int c, const plan_question *q, const plan_option *w, const char *rank, char *buf, size_t len_B)
{
	const model_result *r = &w->r;
	char st[96];
	strbuf fails;
	switch (c) {
	case 0: snprintf(buf, len_B, "%s", rank); break;
	case 1: snprintf(buf, len_B, "%s", w->sc.node.system_id); break;
	case 2: snprintf(buf, len_B, "%s", w->sc.node.gpu_id); break;
	case 3: snprintf(buf, len_B, "%dx%d%s", w->sc.nodes, w->sc.node.gpus_per_node, w->partial ? "*" : ""); break;
	case 4: snprintf(buf, len_B, "%s", model_precision_name(w->sc.precision)); break;
	case 5: snprintf(buf, len_B, "%d", w->sc.batch_per_gpu); break;
	case 6: snprintf(buf, len_B, "%d", r->global_batch); break;
	case 7: snprintf(buf, len_B, "%.0f", r->throughput_img_s); break;
	case 8: snprintf(buf, len_B, "%.1f%%", 100 * r->scaling_eff); break;
	case 9: snprintf(buf, len_B, "%.3f", 1e3 * r->comm_s); break;
	case 10: snprintf(buf, len_B, "%s", r->fits ? model_bottleneck_name(r->bottleneck) : "memory"); break;
	case 11:
		snprintf(buf, len_B, "%.1f%s", r->epochs, r->extrapolated ? "~" : r->extrapolated_below ? "<" : " ");
		break;
	case 12: plan_fmt_duration(r->ttt_s, buf, len_B); break;
	case 13: plan_fmt_range(r->tta_s, r->tta_lo_s, r->tta_hi_s, buf, len_B); break;
	case 14: plan_fmt_usd(w->cost.capex_usd, buf, len_B); break;
	case 15: plan_fmt_usd(w->cost.rent_usd, buf, len_B); break;
	case 16: plan_fmt_usd(w->cost.tco_usd, buf, len_B); break;
	case 17: snprintf(buf, len_B, "%d", w->v.idle_gpus); break;
	case 18: snprintf(buf, len_B, "%s", model_basis_name(r->basis)); break;
	case 19:
		strbuf_init(&fails);
		snprintf(buf, len_B, "%s", plan_fails_text(q, &w->v, &fails));
		strbuf_free(&fails);
		break;
	default: snprintf(buf, len_B, "%s", cli_stack_label(&w->sc, st, sizeof st)); break;
	}
}

/* The table's columns of --columns (NULL: the default; "all": every one) into col[], their count into *n.
 * EXIT_INPUT with the message printed for a name the table lacks. */
static int table_columns(const char *list, int *col, int *n)
{
	*n = 0;
	if (!list || strcmp(list, "all") == 0) {
		for (int c = 0; c < NTCOLS; c++)
			if (list || tcols[c].shown)
				col[(*n)++] = c;
		return EXIT_OK;
	}
	char buf[1024], *save = NULL;
	snprintf(buf, sizeof buf, "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int c = 0;
		while (c < NTCOLS && strcmp(tcols[c].key, t) != 0)
			c++;
		if (c == NTCOLS || *n == NTCOLS) {
			fprintf(stderr, "scaleplan compare: --columns: the table has no column '%s' (its columns: ", t);
			for (int k = 0; k < NTCOLS; k++)
				fprintf(stderr, "%s%s", k ? "," : "", tcols[k].key);
			fprintf(stderr, "; or 'all'; --format csv takes every CSV column)\n");
			return EXIT_INPUT;
		}
		col[(*n)++] = c;
	}
	return EXIT_OK;
}

/* text printed within CLI_TABLE_WIDTH characters a line: each line longer is broken at a blank, its
 * continuation indented under its value where it is "  label   value" (predict's lines), else as its start
 * plus four (deeper than any line of its own: a reader, or tests/lib/cli.sh's unwrap, can join it back). */
void cli_print_wrapped(FILE *out, const char *text)
{
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l), indent = strspn(l, " ") + 4, first = 0;
		const char *gap = strstr(l + indent - 4, "  ");
		if (gap && gap < l + len && gap - l < 40) /* the value's column */
			indent = (size_t)(gap - l) + strspn(gap, " ");
		while (len - first > (first ? CLI_TABLE_WIDTH - indent : CLI_TABLE_WIDTH)) {
			size_t room = first ? CLI_TABLE_WIDTH - indent : CLI_TABLE_WIDTH, cut = first + room;
			while (cut > first + 1 && l[cut] != ' ')
				cut--;
			if (cut <= first + 1) /* one word longer than a line: whole */
				break;
			fprintf(out, "%*s%.*s\n", first ? (int)indent : 0, "", (int)(cut - first), l + first);
			first = cut + 1;
		}
		fprintf(out, "%*s%.*s\n", first ? (int)indent : 0, "", (int)(len - first), l + first);
		l += len + (e != NULL);
	}
}

/* After shown row i: the offers folded into it, each with its price, on lines of their own under the row
 * ("     + aws-p6-b200 rent $25.98, gcp-a4 -"). */
static void print_folded(const plan_option *rows, int nrows, const int *fold, int i)
{
	char m[24];
	strbuf b;
	strbuf_init(&b);
	for (int k = i + 1; k < nrows; k++) {
		if (fold[k] != i)
			continue;
		const model_cost *c = &rows[k].cost;
		strbuf_addf(&b, "%s%s %s%s", b.len_B ? ", " : "     + ", rows[k].sc.node.system_id,
			    isfinite(c->capex_usd) ? "capex " : isfinite(c->rent_usd) ? "rent " : "",
			    plan_fmt_usd(isfinite(c->capex_usd) ? c->capex_usd : c->rent_usd, m, sizeof m));
	}
	if (b.len_B) {
		strbuf_addf(&b, "\n");
		cli_print_wrapped(stdout, b.s);
	}
	strbuf_free(&b);
}

/* The ranked table: one line per placement, in the columns asked (table_columns), each as wide as its widest
 * cell; offers of the same hardware and time folded into the first (plan_fold), named on a line under it.
 * Ranks count the rows shown. */
static void print_table(const cli_scen *s, const plan_question *q, const char *gpus, const plan_option *rows, int nrows,
			const plan_option *pick, bool all, const int *col, int ncol)
{
	int *fold = xmalloc((size_t)nrows * sizeof(*fold));
	int nfolded = all ? 0 : plan_fold(rows, nrows, pick, fold);
	for (int i = 0; all && i < nrows; i++)
		fold[i] = -1;
	char prec[64], order[160], target[64];
	snprintf(prec, sizeof prec, "%s", model_precision_name(s->spec.precision));
	for (int i = 0; i < nrows; i++)
		if (rows[i].sc.precision != s->spec.precision) {
			snprintf(prec, sizeof prec, "%s where the GPU has it", model_precision_name(s->spec.precision));
			break;
		}
	strbuf head;
	strbuf_init(&head);
	strbuf_addf(&head, "scaleplan compare: %s GPU%s, ResNet-50 to %s, %s, data %s; ranked by %s\n", gpus,
		    strcmp(gpus, "1") ? "s" : "", cli_target_label(&s->spec, target, sizeof target), prec,
		    s->spec.data >= 0 ? model_data_name((model_data)s->spec.data) : "as each stack",
		    plan_order_text(q, order, sizeof order));
	cli_print_wrapped(stdout, head.s);
	strbuf_free(&head);
	/* every cell first, to size each column to its widest */
	enum { CELL = 128 };
	char(*cell)[CELL] = xcalloc((size_t)nrows * NTCOLS, CELL);
	int width[NTCOLS], shown = 0;
	for (int c = 0; c < NTCOLS; c++)
		width[c] = (int)strlen(tcols[c].head);
	for (int i = 0; i < nrows; i++) {
		if (fold[i] >= 0)
			continue;
		char rank[16];
		snprintf(rank, sizeof rank, "%s%d", &rows[i] == pick ? ">" : "", ++shown); /* ">4": the pick */
		for (int k = 0; k < ncol; k++) {
			tcell(col[k], q, &rows[i], rank, cell[i * NTCOLS + col[k]], CELL);
			width[col[k]] = (int)fmax(width[col[k]], strlen(cell[i * NTCOLS + col[k]]));
		}
	}
	for (int k = 0; k < ncol; k++) { /* a last column on the left unpadded: no trailing blanks */
		int wd = tcols[col[k]].left ? -width[col[k]] : width[col[k]];
		printf("%s%*s", k ? " " : "", k + 1 < ncol || !tcols[col[k]].left ? wd : 0, tcols[col[k]].head);
	}
	printf("\n");
	for (int i = 0; i < nrows; i++) {
		if (fold[i] >= 0)
			continue;
		for (int k = 0; k < ncol; k++) {
			const char *v = cell[i * NTCOLS + col[k]];
			int wd = tcols[col[k]].left ? -width[col[k]] : width[col[k]];
			printf("%s%*s", k ? " " : "", k + 1 < ncol || !tcols[col[k]].left ? wd : 0, v);
		}
		printf("\n");
		print_folded(rows, nrows, fold, i);
	}
	if (nfolded)
		printf("(+ = %d offer%s of the same hardware and time folded into the row above it, with %s price; "
		       "--all-rows gives each its row)\n", nfolded, nfolded == 1 ? "" : "s", nfolded == 1 ? "its" : "their");
	printf("\n");
	free(cell);
	free(fold);
}

void cli_print_answer(const char *label, const plan_question *q, const plan_answer *a, long gpus)
{
	strbuf b;
	strbuf_init(&b);
	strbuf_addf(&b, "answer%s: ", label);
	plan_answer_write(q, a, gpus, &b);
	cli_print_wrapped(stdout, b.s);
	strbuf_free(&b);
}

/* ---- the answer as JSON (--answer-json): what the page reads; the same struct the words come from ---- */

/* One option: where it is, its time with the 90% interval and its money; null for none. */
static void json_option(FILE *f, const char *name, const plan_option *w, bool more)
{
	json_put_str(f, name);
	fputs(": ", f);
	if (!w)
		fputs("null", f);
	else {
		fputs("{", f);
		json_member_str(f, "system", w->sc.node.system_id, true, false);
		json_member_str(f, "gpu", w->sc.node.gpu_id, true, false);
		json_member_num(f, "nodes", w->sc.nodes, true, false);
		json_member_num(f, "gpus_per_node", w->sc.node.gpus_per_node, true, false);
		json_member_num(f, "time_s", w->v.time_s, true, false);
		json_member_num(f, "time_lo_s", w->v.time_lo_s, true, false);
		json_member_num(f, "time_hi_s", w->v.time_hi_s, true, false);
		json_member_num(f, "cost_usd", w->v.cost_usd, true, false);
		json_member_num(f, "run_cost_usd", w->v.run_cost_usd, true, false);
		json_member_num(f, "capex_usd", w->cost.capex_usd, true, false);
		json_member_num(f, "rent_usd", w->cost.rent_usd, true, false);
		json_member_num(f, "idle_gpus", w->v.idle_gpus, false, false);
		fputs("}", f);
	}
	fputs(more ? ",\n" : "\n", f);
}

static void json_scale(FILE *f, const plan_scale *s)
{
	fputs("\"scale\": ", f);
	if (!s->up) { /* nothing to weigh: every qualifying option spans as many NVLink domains */
		fprintf(f, "{\"up\": null, \"out\": null, \"domains\": %d},\n", s->domains);
		return;
	}
	fputs("{", f);
	json_option(f, "up", s->up, true);
	json_option(f, "out", s->out, true);
	json_member_str(f, "verdict", s->same_domains ? "neither" : s->pick == s->up ? "up" : "out", true, false);
	if (s->same_domains)
		fprintf(f, "\"domains\": %d, ", s->domains);
	fprintf(f, "\"as_fast\": %s, \"same_gpu\": %s, ", s->tied ? "true" : "false", s->same_gpu ? "true" : "false");
	if (s->generation)
		json_member_str(f, "generation", s->generation, true, false);
	fprintf(f, "\"any_gpu\": %s, ", s->any_gpu ? "true" : "false");
	json_member_num(f, "time_ratio", s->time_x, true, false);
	json_member_num(f, "time_ratio_lo", s->lo_x, true, false);
	json_member_num(f, "time_ratio_hi", s->hi_x, true, false);
	json_member_num(f, "gpu_ratio", s->gpu_x, true, false);
	json_member_num(f, "topology_ratio", s->topo_x, false, false);
	fputs("},\n", f);
}

static void json_buy_rent(FILE *f, const plan_buy_rent *b)
{
	fputs("\"buy_rent\": ", f);
	if (!b->buy || !b->rent_id) {
		fputs("null,\n", f);
		return;
	}
	fputs("{", f);
	json_option(f, "buy", b->buy, true);
	json_member_str(f, "rent_system", b->rent_id, true, false);
	json_member_num(f, "rent_usd_gpu_h", b->rent_usd_gpu_h, true, false);
	json_member_num(f, "owner_usd_run", b->owner_usd_run, true, false);
	json_member_num(f, "rent_usd_run", b->rent_usd_run, true, false);
	json_member_num(f, "breakeven_runs_month", b->breakeven_runs_month, true, false);
	json_member_num(f, "max_runs_month", b->max_runs_month, true, false);
	json_member_num(f, "flip_usd_gpu_h", b->flip_usd_gpu_h, false, false);
	fputs("},\n", f);
}

/* The answer's lines (plan_answer_write) as a JSON array of strings, without their indent. */
static void json_lines(FILE *f, const plan_question *q, const plan_answer *a, const plan_flip *flip, long gpus)
{
	strbuf b;
	strbuf_init(&b);
	plan_answer_write(q, a, gpus, &b);
	plan_flip_text(flip, a, &b); /* the page shows what the pick rests on as compare prints it */
	fputs("\"lines\": [", f);
	bool first = true;
	for (char *l = b.s; *l;) {
		char *e = strchr(l, '\n'), *next = e ? e + 1 : l + strlen(l);
		if (e)
			*e = '\0';
		fputs(first ? "" : ", ", f);
		json_put_str(f, l + strspn(l, " "));
		first = false;
		l = next;
	}
	fputs("]\n", f);
	strbuf_free(&b);
}

/* "fold": for each option in the CSV's order, the index of the row it folds into (plan_fold: offers of the
 * same hardware and time, as the table folds them), -1 for a row shown: the page folds its table by it. */
static void json_fold(FILE *f, const plan_answer *a)
{
	int *fold = xmalloc((size_t)(a->noptions > 0 ? a->noptions : 1) * sizeof(*fold));
	plan_fold(a->options, a->noptions, a->winner, fold);
	fputs("\"fold\": [", f);
	for (int i = 0; i < a->noptions; i++)
		fprintf(f, "%s%d", i ? ", " : "", fold[i]);
	fputs("],\n", f);
	free(fold);
}

/* The whole answer into path through path.tmp (file_write_atomic). */
static int write_answer_json(const char *path, const plan_question *q, const plan_answer *a, const plan_flip *flip,
			     long gpus)
{
	char *buf = NULL;
	size_t len_B = 0;
	FILE *f = open_memstream(&buf, &len_B);
	if (!f) {
		fprintf(stderr, "scaleplan compare: --answer-json: out of memory\n");
		return EXIT_ENV;
	}
	fputs("{", f);
	json_member_str(f, "rule", PLAN_RULE, true, false);
	json_member_num(f, "gpus", (double)gpus, true, false);
	json_member_str(f, "cost", plan_cost_name(q->cost), true, false);
	json_member_num(f, "budget_usd", q->budget_usd, true, false);
	json_member_num(f, "deadline_s", q->deadline_s, true, false);
	fputs("\n", f);
	json_option(f, "pick", a->winner, true);
	json_option(f, "fastest", a->fastest, true);
	json_option(f, "cheapest", a->cheapest, true);
	json_option(f, "best_value", a->best_value, true);
	json_option(f, "nearest", a->near_miss, true);
	json_scale(f, &a->scale);
	json_buy_rent(f, &a->buy_rent);
	fputs("\"counts\": {", f);
	json_member_num(f, "options", a->noptions, true, false);
	json_member_num(f, "qualified", a->nqualified, true, false);
	json_member_num(f, "front", a->nfront, true, false);
	json_member_num(f, "as_fast", a->nas_fast, true, false);
	json_member_num(f, "over_budget", a->nfail_budget, true, false);
	json_member_num(f, "past_deadline", a->nfail_deadline, true, false);
	json_member_num(f, "without_price", a->nfail_price, true, false);
	json_member_num(f, "extrapolated", a->nextrapolated, true, false);
	json_member_num(f, "rented", a->nrented, false, false);
	fputs("},\n", f);
	json_fold(f, a);
	json_lines(f, q, a, flip, gpus);
	fputs("}\n", f);
	fclose(f);
	int rc = file_write_atomic(path, buf, len_B);
	free(buf);
	if (rc) {
		fprintf(stderr, "scaleplan compare: --answer-json %s\n", err_msg());
		return exit_code_of(rc);
	}
	return EXIT_OK;
}

/* End-of-life systems among the rows (named in --systems or --include-eol): their prices are historical. */
static void print_eol(FILE *out, const cli_scen *s, const plan_option *rows, int nrows)
{
	strbuf text;
	strbuf_init(&text);
	plan_eol_text(&s->db, rows, nrows, &text);
	if (text.len_B)
		fprintf(out, "(%s)\n", text.s);
	strbuf_free(&text);
}

/* What the table's money columns mean and what was left out. */
static void print_notes(FILE *out, const cli_scen *s, const plan_question *q, const plan_option *rows, int nrows, int skipped_net,
			int skipped_whole, const char *left_out)
{
	int unpriced = 0, partial = 0;
	for (int i = 0; i < nrows; i++) {
		unpriced += !isfinite(plan_cost_usd(q->cost, &rows[i].cost));
		partial += rows[i].partial;
	}
	const model_money *m = &s->spec.money;
	fprintf(out, "comm ms = the step's all-reduce (inside an NVLink domain over NVLink, between domains over the NICs); "
	       "capex = whole units bought at list price + network (the fabric's switches and links, front-end and "
	       "management) + storage + racks + cooling + installation (each in predict's capex line and the CSV's capex_* "
	       "columns); ");
	if (m->rent_session_s > 0)
		fprintf(out, "rent/run = a run's share of a rental session: whole instances held %.3g h (--rent-session-h; the "
		       "month's runs where fewer) for back-to-back runs, billed as the provider bills, start-up and data copy "
		       "once a session; a reservation, the run's share of its month; ", m->rent_session_s / 3600.0);
	else
		fprintf(out, "rent/run = whole instances rented for the run alone (--rent-session-h 0) as billed, with its start-up "
		       "and data copy; a reservation, the run's share of its month; ");
	char tco[256];
	model_money_tco_words(m, m->runs_per_month > 0 ? "--runs-per-month" : m->utilisation >= 1 ? "runs back to back"
							     : "the --utilisation", tco, sizeof tco);
	fprintf(out, "idle = GPUs bought (whole servers or racks) and left idle; tco/run = %s; "
	       "'-' = not priced (why: the lines in parentheses below; the CSV has each part and its range); meets = the budget and "
	       "deadline (the predicted time; the answer says which meet it with 90%% confidence) or what fails and by how much\n",
	       tco);
	cli_unpriced_notes(out, rows, nrows);
	if (unpriced && q->cost == PLAN_RUN)
		fprintf(out, "(%d option%s with neither a purchase price nor a rent at this count: they cannot qualify)\n",
			unpriced, unpriced > 1 ? "s" : "");
	else if (unpriced && (q->goal == PLAN_COST || !isnan(q->budget_usd) || !isnan(q->deadline_s) || q->cost != PLAN_CAPEX))
		fprintf(out, "(%d option%s without a %s price: they cannot qualify; --cost run weighs bought and rented options "
			"on one price)\n", unpriced, unpriced > 1 ? "s" : "", plan_cost_name(q->cost));
	if (partial)
		fprintf(out, "(* = GPUs of the node left idle; costed as the whole node)\n");
	fprintf(out, "(> = the pick: %s)\n", PLAN_RULE);
	int extra = 0;
	for (int i = 0; i < nrows; i++)
		extra += rows[i].r.fits && rows[i].r.extrapolated;
	if (extra)
		fprintf(out, "(~ = global batch above the largest measured convergence point (%.0f): epochs extrapolated; "
		       "%s)\n", model_conv_max_batch(&rows[0].sc), q->extrapolate ? "--extrapolate lets them qualify"
									 : "not recommended without --extrapolate");
	int below = 0;
	for (int i = 0; i < nrows; i++)
		below += rows[i].r.fits && rows[i].r.extrapolated_below;
	if (below)
		fprintf(out, "(< = global batch below the smallest measured convergence point (%.0f): epochs held at its "
		       "value, extrapolated)\n", model_conv_min_batch(&rows[0].sc));
	if (skipped_whole)
		fprintf(out, "(%d system%s left out: N is not a multiple of their GPUs per node (%s); --partial-nodes shows them)\n",
		       skipped_whole, skipped_whole > 1 ? "s" : "", left_out);
	if (skipped_net)
		fprintf(out, "(%d multi-node placement%s skipped: system without a network in the database; --fabric ID adds one)\n",
		       skipped_net, skipped_net > 1 ? "s" : "");
	print_eol(out, s, rows, nrows);
	int far = 0;
	for (int i = 0; i < nrows; i++)
		far += model_scale_of(rows[i].sc.nodes) == MODEL_NSCALES - 1;
	if (far) /* the intervals there rest on few held-out runs */
		fprintf(out, "(beyond 16 nodes " MODEL_SCALE_TOP_NOTE "; `scaleplan validate` reports how often held-out "
			     "results of that scale fall inside their interval)\n");
}

/* compare's own columns after predict's (plan_row.c), before stack: one table for the header and the cells. */
typedef struct opt_row {
	const plan_question *q;
	const model_scenario *sc;
	const plan_verdict *v;
	double x[2], lo[2], hi[2]; /* this row's ttt and tta over the pick's, with the 90% interval */
	bool pick;
	const char *fails; /* plan_fails_text's, or "" */
} opt_row;

#define OR(p) ((const opt_row *)(p))
static double o_meets(const void *p) { return OR(p)->v->fails ? 0 : 1; }
static const char *o_fails(const void *p) { return OR(p)->fails; }
static double o_over(const void *p) { return OR(p)->v->over_budget_usd; }
static double o_late(const void *p) { return OR(p)->v->late_s; }
static double o_idle(const void *p) { return OR(p)->v->idle_gpus; }
static double o_ttt_x(const void *p) { return OR(p)->x[0]; }
static double o_ttt_lo(const void *p) { return OR(p)->lo[0]; }
static double o_ttt_hi(const void *p) { return OR(p)->hi[0]; }
static double o_tta_x(const void *p) { return OR(p)->x[1]; }
static double o_tta_lo(const void *p) { return OR(p)->lo[1]; }
static double o_tta_hi(const void *p) { return OR(p)->hi[1]; }
static double o_deadline_p(const void *p) { return OR(p)->v->deadline_p; }
static double o_pick(const void *p) { return OR(p)->pick; }
static double o_flip(const void *p) { return OR(p)->v->flip_speed_x > 0 ? OR(p)->v->flip_speed_x : NAN; }
static const char *o_stack(const void *p) { return OR(p)->sc->stack.id; }
static double o_run_cost(const void *p) { return OR(p)->v->run_cost_usd; }

static const out_col option_cols[] = {
	{"meets", "1 = meets the budget and deadline", COL_INT, 0, o_meets, NULL, 0},
	{"fails", "what fails and by how much", COL_TEXT, 0, NULL, o_fails, 0},
	{"over_budget_usd", "USD", COL_NUM, 8, o_over, NULL, 0},
	{"late_s", "s", COL_NUM, 6, o_late, NULL, 0},
	{"idle_gpus", "GPUs bought and idle", COL_INT, 0, o_idle, NULL, 0},
	{"ttt_ratio", "time to train over the pick's", COL_NUM, 6, o_ttt_x, NULL, 0},
	{"ttt_ratio_lo", "its 90% interval", COL_NUM, 6, o_ttt_lo, NULL, 0},
	{"ttt_ratio_hi", "", COL_NUM, 6, o_ttt_hi, NULL, 0},
	{"tta_ratio", "time to accuracy over the pick's", COL_NUM, 6, o_tta_x, NULL, 0},
	{"tta_ratio_lo", "its 90% interval", COL_NUM, 6, o_tta_lo, NULL, 0},
	{"tta_ratio_hi", "", COL_NUM, 6, o_tta_hi, NULL, 0},
	{"deadline_p", "chance of meeting the deadline", COL_NUM, 4, o_deadline_p, NULL, 0},
	{"pick", "1 = the decision's pick", COL_INT, 0, o_pick, NULL, 0},
	{"run_cost_usd", "USD: a run as its buyer pays it (owned: tco; rented: rent), --cost run", COL_NUM, 8,
	 o_run_cost, NULL, 0},
	{"flip_speed_ratio", "the pick: the factor on its predicted speed below which another is picked", COL_NUM, 4,
	 o_flip, NULL, 0},
	{"stack", "stacks.csv id", COL_TEXT, 0, NULL, o_stack, 0},
};
enum { OPTION_NCOLS = sizeof(option_cols) / sizeof(option_cols[0]) };

void cli_option_csv_header(csvw *w)
{
	plan_row_csv_header_all(w);
	col_csv_header(w, option_cols, OPTION_NCOLS);
	csvw_end_row(w);
}

bool cli_is_pick(const model_scenario *sc, const model_scenario *pick_sc)
{
	return pick_sc && strcmp(sc->node.system_id, pick_sc->node.system_id) == 0 && sc->nodes == pick_sc->nodes &&
	       sc->node.gpus_per_node == pick_sc->node.gpus_per_node && sc->batch_per_gpu == pick_sc->batch_per_gpu;
}

void cli_option_csv_row(csvw *w, const plan_question *q, const model_scenario *sc, const model_result *r,
			const model_cost *cost, const plan_verdict *v, const model_scenario *pick_sc,
			const model_result *pick_r)
{
	opt_row o = {q, sc, v, {NAN, NAN}, {NAN, NAN}, {NAN, NAN}, false, ""};
	strbuf fails;
	strbuf_init(&fails);
	if (v->fails)
		o.fails = plan_fails_text(q, v, &fails);
	for (int k = 0; pick_sc && k < 2; k++) /* this row's time over the pick's, with its 90% interval */
		plan_ratio(sc, r, pick_sc, pick_r, k ? MODEL_Q_TTA : MODEL_Q_TTT, &o.x[k], &o.lo[k], &o.hi[k]);
	o.pick = cli_is_pick(sc, pick_sc); /* the decision's pick (1) */
	plan_row_csv_cells_all(w, sc, r, cost);
	col_csv_cells(w, option_cols, OPTION_NCOLS, &o);
	csvw_end_row(w);
	strbuf_free(&fails);
}

/* The CSV to stdout, or to --out through FILE.tmp (before the table is printed), with SIGINT/SIGTERM held from
 * the last check to the rename, so exit 130/143 always means the old file is kept and exit 0 the new one is in place. */
static int write_csv(const char *outpath, const char *columns, const plan_question *q, plan_option *rows, int nrows,
		     const plan_answer *a)
{
	csvw *w = NULL;
	if (!outpath)
		w = csvw_stream(stdout);
	else {
		int crc = csvw_create(outpath, &w); /* README's rule: a missing folder is 1, permission or disk 2 */
		if (crc) {
			fprintf(stderr, "scaleplan compare: --out %s\n", err_msg());
			return exit_code_of(crc);
		}
	}
	const model_scenario *psc = a->winner ? &a->winner->sc : NULL;
	const model_result *pr = a->winner ? &a->winner->r : NULL;
	if (columns && strcmp(columns, "all") != 0)
		csvw_select(w, columns);
	cli_option_csv_header(w);
	for (int i = 0; i < nrows; i++)
		cli_option_csv_row(w, q, &rows[i].sc, &rows[i].r, &rows[i].cost, &rows[i].v, psc, pr);
	if (outpath)
		intr_phase("rename"); /* the test hook's signal before the hold: it must keep the old file */
	if (outpath && intr_hold()) {
		csvw_abort(w);
		fprintf(stderr, "scaleplan compare: %s\n", err_msg());
		return EXIT_ENV;
	}
	int crc = csvw_close(w);
	if (crc) { /* only --columns is the user's input here; the rest is the disk's */
		fprintf(stderr, "scaleplan compare: %s\n", err_msg());
		return exit_code_of(crc) == EXIT_INPUT && !columns ? EXIT_ENV : exit_code_of(crc);
	}
	return EXIT_OK;
}

/* The counts a deadline alone tries: the powers of two from 8 (a server) to 1024, the list `--gpus 8,16,...,1024`
 * asks as one question; fewer than 8 GPUs is a server part-used (each answer names fewer GPUs as fast). */
static int deadline_counts(long *c, int max)
{
	int n = 0;
	for (long g = 8; g <= 1024 && g <= CLI_MAX_GPUS && n < max; g *= 2)
		c[n++] = g;
	return n;
}

/* --deadline without --gpus: the fewest of deadline_counts at which an option meets it into co's one count
 * (none: the largest, whose table shows how far it falls short) and *found. */
static int deadline_count(cli_scen *s, const plan_question *q, const hw_system *const *cand, int ncand, cmp_opts *co,
			  plan_count *found)
{
	long c[CMP_MAX_COUNTS];
	int n = deadline_counts(c, CMP_MAX_COUNTS);
	if (plan_deadline_count(&s->db, &s->spec, &s->params, q, cand, ncand, c, n, found)) {
		fprintf(stderr, "scaleplan compare: %s\n", err_msg());
		return EXIT_INPUT;
	}
	co->counts[0] = (int)c[found->at >= 0 ? found->at : n - 1];
	co->ncounts = 1;
	return EXIT_OK;
}

/* Which count a deadline alone chose, and why: the count below it (or none) missed the deadline. */
static void print_count(const plan_question *q, const plan_count *found, long gpus)
{
	long c[CMP_MAX_COUNTS];
	int n = deadline_counts(c, CMP_MAX_COUNTS);
	char d[32], t[32];
	plan_fmt_duration(q->deadline_s, d, sizeof d);
	if (found->at < 0) {
		printf("No option meets the deadline of %s at up to %ld GPUs (tried %ld, %ld, ..., %ld", d, gpus, c[0],
		       c[1], c[n - 1]);
		if (isfinite(found->below_s))
			printf("; at %ld the fastest takes %s", found->below, plan_fmt_duration(found->below_s, t, sizeof t));
		printf(").\n");
		return;
	}
	printf("GPUs: %ld, the fewest of %ld, %ld, ..., %ld at which an option meets the deadline of %s", gpus, c[0], c[1],
	       c[n - 1], d);
	if (found->below && isfinite(found->below_s))
		printf(" (at %ld the fastest takes %s)", found->below, plan_fmt_duration(found->below_s, t, sizeof t));
	else if (found->below)
		printf(" (at %ld no option fits)", found->below);
	printf(".\n");
}

int cmd_compare(int argc, char **argv)
{
	cli_scen s;
	cmp_opts co = {.format = "table"};
	int rc = EXIT_OK, nrows = 0, cap = 0, skipped_net = 0, skipped_whole = 0;
	const hw_system *cand[256];
	int ncand = 0;
	plan_option *rows = NULL;
	plan_question q;
	cli_opt scen[CLI_SCEN_NOPTS], ask[CLI_ASK_NOPTS], own[8];
	cli_ask qa = {.cmd = "compare", .q = &q};

	plan_question_init(&q);
	cli_scen_init(&s, "compare");
	cli_scen_opts(&s, scen);
	cli_ask_opts(&qa, ask);
	compare_table(&co, own);
	cli_parse p = {.cmd = "compare", .tables = {scen, ask, own}, .usage = compare_usage, .max_args = 0};
	rc = cli_opt_parse(&p, argc, argv);
	if (rc || p.done)
		return rc;
	const char *systems = co.systems, *format = co.format, *outpath = co.outpath;
	long gpus = co.ncounts == 1 ? co.counts[0] : 0; /* 0: several counts, one question */
	char counts[CMP_MAX_COUNTS * 12] = "";
	for (int k = 0; k < co.ncounts; k++)
		snprintf(counts + strlen(counts), sizeof counts - strlen(counts), "%s%d", k ? "," : "", co.counts[k]);
	if ((rc = cli_check_out("compare", "--out", outpath, false)) ||
	    (rc = cli_check_out("compare", "--answer-json", co.answer_json, false)))
		return rc;
	int col[NTCOLS], ncol = 0;
	if (strcmp(format, "table") == 0 && (rc = table_columns(s.columns, col, &ncol)))
		return rc;
	bool find_count = co.ncounts < 1 && !isnan(q.deadline_s); /* --deadline alone: the fewest GPUs that meet it */
	if (co.ncounts < 1 && !find_count) {
		fprintf(stderr, "scaleplan compare: --gpus N is required (e.g. --gpus 8), unless --deadline T alone asks "
				"for the fewest GPUs that meet it\n");
		return EXIT_INPUT;
	}
	if (s.spec.system_id || s.spec.gpus_per_node || s.spec.nodes != 1 || s.spec.global_batch) {
		fprintf(stderr, "scaleplan compare: --system/--gpus-per-node/--nodes/--global-batch are chosen by "
				"compare; use --systems and --gpus (or `predict` for one placement)\n");
		return EXIT_INPUT;
	}
	rc = cli_scen_load(&s);
	if (rc)
		goto out;
	rc = cli_candidates(&s, "compare", systems, &q, cand, 256, &ncand);
	if (rc)
		goto out;
	if (s.spec.nmeasured && ncand > 1 && !s.spec.measured_system_id) {
		fprintf(stderr, "scaleplan compare: --measured describes one system: name it with --measured-system ID "
				"(the others move from it by the model's GPU ratios), or give exactly one in --systems\n");
		rc = EXIT_INPUT;
		goto out;
	}
	plan_count found = {.at = -1};
	if (find_count && (rc = deadline_count(&s, &q, cand, ncand, &co, &found)))
		goto out;
	if (find_count) {
		gpus = co.counts[0];
		snprintf(counts, sizeof counts, "%d", co.counts[0]);
	}
	for (int k = 0; k < co.ncounts && !rc; k++) /* several counts: every placement of each, one question */
		rc = cli_placements(&s, "compare", &q, cand, ncand, co.counts[k], &rows, &nrows, &cap, &skipped_net,
				    &skipped_whole);
	if (rc)
		goto out;
	if (nrows == 0) {
		rc = cli_no_placement("compare", co.counts[0], skipped_net, skipped_whole);
		goto out;
	}
	plan_options_sort(&q, rows, nrows);
	plan_answer a;
	plan_decide(&q, rows, nrows, &a); /* once: the table's mark, the answer and the CSV's ratios are of one pick */
	if (gpus && plan_fewer_gpus(&s.db, &s.spec, &s.params, &q, &a)) { /* the knee: fewer GPUs as fast */
		fprintf(stderr, "scaleplan compare: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	plan_flip flip;
	plan_flip_find(&q, rows, nrows, &a, &s.params, &flip);
	if (a.winner)
		rows[a.winner - rows].v.flip_speed_x = flip.speed_x;
	if (!outpath && strcmp(format, "csv") == 0) {
		rc = write_csv(NULL, s.columns, &q, rows, nrows, &a);
		goto out;
	}
	/* the files first: a reader that stops early (`| head`) ends the table with SIGPIPE, never the files */
	if (co.answer_json && (rc = write_answer_json(co.answer_json, &q, &a, &flip, gpus)))
		goto out;
	if (outpath && (rc = write_csv(outpath, strcmp(format, "csv") == 0 ? s.columns : NULL, &q, rows, nrows, &a)))
		goto out;
	print_table(&s, &q, counts, rows, nrows, a.winner, co.all_rows, col, ncol);
	cli_print_answer("", &q, &a, gpus);
	if (find_count)
		print_count(&q, &found, gpus);
	{
		strbuf rests;
		strbuf_init(&rests);
		plan_flip_text(&flip, &a, &rests);
		cli_print_wrapped(stdout, rests.s);
		strbuf_free(&rests);
	}
	{
		strbuf left_out;
		strbuf_init(&left_out);
		for (int k = 0; k < co.ncounts; k++)
			plan_left_out_names(&s.spec, &q, cand, ncand, co.counts[k], &left_out);
		char *notes = NULL;
		size_t len_B = 0;
		FILE *m = open_memstream(&notes, &len_B);
		if (m) { /* the legend wrapped as the answer is */
			print_notes(m, &s, &q, rows, nrows, skipped_net, skipped_whole, left_out.s);
			fclose(m);
			cli_print_wrapped(stdout, notes);
		}
		free(notes);
		strbuf_free(&left_out);
	}
out:
	free(rows);
	cli_scen_free(&s);
	return rc;
}
