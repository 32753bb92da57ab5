/* cli: the `scaleplan` command - it parses options, calls plan/ and model/ (and sim/, calibrate/, plot/, report/)
 * and prints; it decides nothing. main.c dispatches `scaleplan <command> [options]` to one function per command,
 * each in its own file cli/cmd_<name>.c, parsing its options from tables (cli/opt.c). This one header serves the
 * folder's files, in groups: the commands; option tables; the run's options (cli/scenario.c); the buyer's question
 * (cli/ask.c); checks across options and shared printing (cli/optcheck.c); the database (cli/db.c); what calibrate,
 * validate, plot and campaign share. Owners add their command with one prototype here and one line in main.c's
 * table. Every function that can fail prints its own message ("scaleplan CMD: ...") and returns an exit code
 * (EXIT_OK, EXIT_INPUT, EXIT_ENV: common/common.h).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_CLI_H
#define SCALEPLAN_CLI_H

#include <getopt.h> /* struct option: cli_opt_longopts, report's page */
#include <stdbool.h>
#include <stdio.h>

#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"
#include "plan/plan.h"

/* ---- the commands (cli/cmd_<name>.c, main.c's table) ---- */
/* One subcommand: argv[0] is the command name, options follow. Returns an exit code (0, 1, 2). */
typedef int (*cli_fn)(int argc, char **argv);

/* main.c's table: a command's name, its function and the line `scaleplan --help` gives it. */
typedef struct cli_cmd {
	const char *name;
	cli_fn fn;
	const char *summary;
} cli_cmd;
int cmd_hw(int argc, char **argv);        /* the hardware database: list, show, check, import */
int cmd_predict(int argc, char **argv);   /* one placement predicted: time, bottleneck, money */
int cmd_compare(int argc, char **argv);   /* every placement of N GPUs ranked, and the answer */
int cmd_report(int argc, char **argv);    /* compare's question at several counts as a procurement report */
int cmd_sweep(int argc, char **argv);     /* a grid of configurations to CSV, ranked or streamed */
int cmd_sim(int argc, char **argv);       /* a whole training run played event by event */
int cmd_calibrate(int argc, char **argv); /* the model's parameters fitted to measurements */
int cmd_validate(int argc, char **argv);  /* every measurement predicted without fitting to it */
int cmd_plot(int argc, char **argv);      /* charts of the CSVs the commands write */
int cmd_campaign(int argc, char **argv);  /* calibrate, validate and plot over one set of runs */

/* The most GPUs any command plans for (compare and report --gpus, predict's and sim's nodes x GPUs per node,
 * sweep's configurations): one limit, about the largest training clusters built by 2025 (100,000 GPUs). */
#define CLI_MAX_GPUS_N 100000
enum { CLI_MAX_GPUS = CLI_MAX_GPUS_N };

/* ---- option tables (cli/opt.c) ----
 * Each command lists its options in a table of cli_opt, ended by {CLI_OPT_END}, and hands the tables to
 * cli_opt_parse (git's parse-options in spirit): one getopt_long loop for every command, one check per
 * kind, one message for a bad value ("scaleplan CMD: --NAME 'ARG': expected WANT"), and --help printed
 * from the same entries (cli_opt_help) so that the help cannot list an option the parser lacks.
 * Error convention: cli_opt_parse returns an exit code (EXIT_OK, EXIT_INPUT with the message printed);
 * after --help it returns EXIT_OK with p->done set, and the command returns EXIT_OK at once. */
typedef enum cli_opt_kind {
	CLI_OPT_END = 0, /* ends a table */
	CLI_OPT_TEXT,    /* no option: help text only (a heading) */
	CLI_OPT_FLAG,    /* bool *dest = true */
	CLI_OPT_STRING,  /* const char **dest = the argument */
	CLI_OPT_INT,     /* int *dest: a whole number in [lo, hi] */
	CLI_OPT_LONG,    /* long *dest: the same */
	CLI_OPT_DOUBLE,  /* double *dest: a finite number in [lo, hi] (open_lo/open_hi: that end excluded) */
	CLI_OPT_ENUM,    /* const char **dest = the one of choices[] given */
	CLI_OPT_ONOFF,   /* bool *dest: on or off */
	CLI_OPT_CALL,    /* fn(ctx, opt, arg): 0 taken, 1 taken and done (it printed what was asked, as --help),
			  * -1 bad (fn printed why; cli_opt_bad helps) */
	CLI_OPT_HELP,    /* --help: p->usage(stdout), done */
} cli_opt_kind;

typedef struct cli_opt cli_opt;
struct cli_opt {
	cli_opt_kind kind;
	const char *name;              /* long name without dashes; NULL for CLI_OPT_TEXT */
	int short_name;                /* 'o' for -o, or 0 */
	void *dest;                    /* where the value goes (the kind says its type) */
	const char *want;              /* what a bad value's message says was expected */
	const char *help;              /* the option's --help lines, verbatim (NULL: described elsewhere) */
	double lo, hi;                 /* the range of INT, LONG, DOUBLE */
	bool open_lo, open_hi;
	const char *const *choices;    /* ENUM: the words, NULL-terminated */
	int (*fn)(void *ctx, const cli_opt *o, const char *arg); /* CALL */
	void *ctx;
	bool no_arg;                   /* CALL without an argument (arg NULL) */
	const char *alias_of;          /* another spelling: messages name that option */
	bool repeatable;               /* may be given more than once (each adds); others: once */
};

/* Table entries, as git's OPT_* macros: name, where to, [range, what a bad value's message expects,] help. */
#define CLI_O_TEXT(h) {.kind = CLI_OPT_TEXT, .help = (h)}
#define CLI_O_FLAG(n, d, h) {.kind = CLI_OPT_FLAG, .name = (n), .dest = (d), .help = (h)}
#define CLI_O_STR(n, d, h) {.kind = CLI_OPT_STRING, .name = (n), .dest = (d), .help = (h)}
#define CLI_O_INT(n, d, l, u, w, h) {.kind = CLI_OPT_INT, .name = (n), .dest = (d), .lo = (l), .hi = (u), .want = (w), .help = (h)}
#define CLI_O_LONG(n, d, l, u, w, h) {.kind = CLI_OPT_LONG, .name = (n), .dest = (d), .lo = (l), .hi = (u), .want = (w), .help = (h)}
#define CLI_O_DBL(n, d, l, u, w, h) {.kind = CLI_OPT_DOUBLE, .name = (n), .dest = (d), .lo = (l), .hi = (u), .want = (w), .help = (h)}
#define CLI_O_ENUM(n, d, c, w, h) {.kind = CLI_OPT_ENUM, .name = (n), .dest = (d), .choices = (c), .want = (w), .help = (h)}
#define CLI_O_ONOFF(n, d, h) {.kind = CLI_OPT_ONOFF, .name = (n), .dest = (d), .want = "on or off", .help = (h)}
#define CLI_O_CALL(n, f, c, h) {.kind = CLI_OPT_CALL, .name = (n), .fn = (f), .ctx = (c), .help = (h)}
/* a CALL option with what a bad value's message expects (the function says it with cli_opt_bad) */
#define CLI_O_CALLW(n, f, c, w, h) {.kind = CLI_OPT_CALL, .name = (n), .fn = (f), .ctx = (c), .want = (w), .help = (h)}
/* an option that may be given more than once, each adding (--param, --measured) */
#define CLI_O_CALLS(n, f, c, h) {.kind = CLI_OPT_CALL, .name = (n), .fn = (f), .ctx = (c), .help = (h), .repeatable = true}
#define CLI_O_HELP {.kind = CLI_OPT_HELP, .name = "help", .short_name = 'h'}
#define CLI_O_END {.kind = CLI_OPT_END}

enum { CLI_OPT_MAX_TABLES = 4 }; /* tables one command hands cli_opt_parse, at most */
/* A macro's value as a string, for help text ("1.." CLI_STR(CLI_MAX_GPUS_N)). */
#define CLI_STR2(x) #x
#define CLI_STR(x) CLI_STR2(x)
/* What a command hands cli_opt_parse, and what it gets back. */
typedef struct cli_parse {
	const char *cmd;                            /* "predict": messages say "scaleplan predict: ..." */
	const cli_opt *tables[CLI_OPT_MAX_TABLES];  /* getopt's order; NULL after the last */
	void (*usage)(FILE *out);                   /* the whole help, printed by --help */
	bool usage_on_error;                        /* unknown option: usage(stderr), not "see --help" */
	bool got_style;                             /* bad value: "--NAME: expected WANT, got 'ARG'" */
	int max_args;                               /* arguments after the options allowed; -1: any */
	/* set by cli_opt_parse */
	char **args;
	int nargs;
	bool done;                                  /* --help printed: nothing more to do */
} cli_parse;

/* Parses argv[1..] against p's tables into their destinations. EXIT_OK (p->done after --help) or
 * EXIT_INPUT (message printed: getopt's, the value's, "unexpected argument", an option that takes a value
 * given twice and not .repeatable (both values named), or two options that answer one question: opt.c's
 * cli_opt_conflicts). */
int cli_opt_parse(cli_parse *p, int argc, char **argv);
/* A CALL option's bad value, in the one message of every bad value: "scaleplan CMD: --NAME 'ARG': expected WANT"
 * (o->want). Returns -1, what the CALL function returns. */
int cli_opt_bad(const char *cmd, const cli_opt *o, const char *arg);
/* Prints the help text of table's entries, leaving out the options named in omit ("nodes,global-batch"). */
void cli_opt_help(FILE *out, const cli_opt *table, const char *omit);
/* Copies table's options into opts[from..max) (what getopt knows of them: report's page reads its command
 * line with them), entry i with the value val_base + i; returns the new count. */
struct option;
int cli_opt_longopts(const cli_opt *table, int val_base, struct option *opts, int from, int max);
/* Whole-string numbers in [lo, hi]: 0, or -1 for anything else. */
int cli_parse_long(const char *s, long lo, long hi, long *out);
int cli_parse_double(const char *s, double lo, double hi, double *out);
/* true when name is one of the comma-separated names of list (NULL: none). */
bool cli_opt_in_list(const char *list, const char *name);

/* ---- the run's options (cli/scenario.c) ----
 * Shared option parsing of predict, compare, sweep and sim: the hardware (a system and/or component
 * overrides), the run (nodes, batch, precision, data, epochs), model parameters and calibration.
 * Usage in a command:
 *   cli_scen s; cli_scen_init(&s, "cmd"); cli_opt scen[CLI_SCEN_NOPTS]; cli_scen_opts(&s, scen);
 *   cli_parse p = {.cmd = "cmd", .tables = {scen, own}, ...}; rc = cli_opt_parse(&p, argc, argv);
 *   rc = cli_scen_load(&s);           (database, --hwdb, --param, --profile, id checks)
 *   rc = cli_scen_resolve(&s, sys, gpus_per_node, nodes, &sc);   (model_scenario ready to predict) */
enum { CLI_SCEN_MAX_LIST = 64 }; /* --param given at most this often */
enum { CLI_SCEN_MONEY_MAX = 16 }; /* money options with a flag (model_money_inputs) */
/* The run as the options describe it, then what cli_scen_load adds. */
typedef struct cli_scen {
	const char *cmd;           /* "predict", for messages */
	const char *hwdb_dir;
	plan_spec spec;            /* the run as the options describe it (plan/plan.h) */
	const char *params_set[CLI_SCEN_MAX_LIST]; /* --param NAME=VALUE */
	int nparams_set;
	const char *profile;       /* --profile FILE (calibrate's output) */
	const char *columns;       /* --columns LIST: the columns of a table of rows or CSV (NULL: the default) */
	void (*columns_help)(FILE *out); /* what --columns help prints: the command's CSV columns (NULL: it has none) */
	/* after cli_scen_load */
	hw_db db;
	bool loaded;
	model_params params;
	const hw_system *system;   /* NULL when described by components only */
} cli_scen;

/* s with the defaults (plan_spec_init) for command cmd (its messages name it); _free releases what _load loaded. */
void cli_scen_init(cli_scen *s, const char *cmd);
void cli_scen_free(cli_scen *s);
/* The shared options' table bound to s (its entries store into s), in --help's order, into
 * t[CLI_SCEN_NOPTS], ended by CLI_O_END; returns the count of entries before the end. */
enum { CLI_SCEN_NOPTS = 64 };
int cli_scen_opts(cli_scen *s, cli_opt *t);
/* Prints the shared options' help (the table's). */
void cli_scen_help(FILE *out);
/* The same without the options named in omit ("nodes,global-batch": those a command chooses itself and
 * refuses), so that every option a --help lists is one the command accepts (tests/help_options.sh). */
void cli_scen_help_except(FILE *out, const char *omit);
/* Loads the database and parameters and checks every id given (unknown ids get suggestions).
 * EXIT_OK, EXIT_INPUT or EXIT_ENV. */
int cli_scen_load(cli_scen *s);
/* Builds a prepared (and, with --measured, calibrated) model scenario for system sys (NULL = the
 * --system, or components only) with gpn GPUs per node (0 = from options/system) on `nodes` nodes
 * (0 = from options). Resolves the batch (auto, --global-batch) too. EXIT_OK or EXIT_INPUT. */
int cli_scen_resolve(cli_scen *s, const hw_system *sys, int gpn, int nodes, model_scenario *sc);
/* Parses "a,b,c" or "a-b" (inclusive) or "a-b:step" into ints, each value once; EXIT_OK or EXIT_INPUT with
 * "scaleplan CMD: WHAT ..." printed. */
int cli_parse_int_list(const char *cmd, const char *what, const char *arg, int *out, int max, int *n);
/* --columns help of predict (its CSV columns) and of compare, sweep and report (the judged options'), each
 * with its unit or meaning, in order, from plan/plan_row.c's table. */
void cli_columns_predict(FILE *out);
void cli_columns_judged(FILE *out);
/* Prints the model parameters (name, value, default, unit, source) for --params. */
void cli_params_print(FILE *out, const model_params *p);
/* What the epochs rest on, as predict and sim print it (cli/cmd_predict.c): " (EXTRAPOLATED: the global batch
 * is above the largest measured convergence point)", " (--epochs)", " (MLPerf convergence curve at this global
 * batch)" ... */
const char *cli_epochs_note(const model_scenario *sc, const model_result *r);

/* ---- the buyer's question (cli/ask.c): compare, report and sweep ----
 * Its options (plan/plan.h plan_question): --rank-by tta|ttt|cost (sweep also none), --cost run|capex|tco|rent,
 * --budget USD, --deadline DURATION, --site-kw, --partial-nodes, --extrapolate, --include-eol. */
enum { CLI_ASK_NOPTS = 12 };
/* What the question's options store into: q, with cmd naming the command in messages (allow_grid: sweep's
 * --rank-by none). */
typedef struct cli_ask {
	const char *cmd;
	plan_question *q;
	bool allow_grid;
} cli_ask;
/* The question's options as a table (cli/opt.c) bound to a, in --help's order, into t[CLI_ASK_NOPTS]; returns the
 * count of entries before the end. */
int cli_ask_opts(cli_ask *a, cli_opt *t);
/* Prints the question's options' help (the table's). */
void cli_ask_help(FILE *out, bool allow_grid);

/* What --systems offers without it, word for word in compare's, report's and sweep's help and the README: */
#define CLI_DEFAULT_SYSTEMS_HELP \
	"default: today's products, bought and rented - every current system with a purchase\n" \
	"                  price or a cloud provider; no test beds, no end-of-life (--include-eol adds\n" \
	"                  those); 'all' = every current system, test beds too; a named system whatever\n" \
	"                  its status\n"
/* The candidate systems of --systems LIST (NULL: today's products, plan_default_system; "all": every system of
 * today; both with the end-of-life ones under q->include_eol; a named system whatever its status) into cand[max].
 * Prints "scaleplan CMD: ..." and returns EXIT_INPUT on an unknown id or none. */
int cli_candidates(cli_scen *s, const char *cmd, const char *systems, const plan_question *q, const hw_system **cand,
		   int max, int *n);
/* plan_placements for the options in s (message printed on failure): EXIT_OK or EXIT_INPUT. */
int cli_placements(cli_scen *s, const char *cmd, const plan_question *q, const hw_system *const *cand, int ncand,
		   long gpus, plan_option **rows, int *nrows, int *cap, int *skipped_net, int *skipped_whole);
/* "scaleplan CMD: no candidate system can hold N GPUs: K placements over several nodes need a network ...; M
 * systems have another node size (--partial-nodes ...)": why no placement was left. Returns EXIT_INPUT. */
int cli_no_placement(const char *cmd, long gpus, int skipped_net, int skipped_whole);
/* The answer (plan_answer_write) to stdout: "answer{label}: " before its first line; its labelled lines after. */
void cli_print_answer(const char *label, const plan_question *q, const plan_answer *a, long gpus);

/* ---- checks across options and shared printing (cli/optcheck.c) ----
 * Each check prints "scaleplan CMD: ..." and returns an exit code. */

/* nodes x gpus_per_node within CLI_MAX_GPUS: EXIT_OK, else EXIT_INPUT with both named. */
int cli_check_gpus(const char *cmd, long nodes, int gpus_per_node);
/* --columns where the output asked is not a table of rows or a CSV (ok false): refused with why. EXIT_OK or
 * EXIT_INPUT (message printed). */
int cli_check_columns(const char *cmd, const char *columns, bool ok, const char *why);
/* An output path (opt names the option: "--out") checked before any work, so that a bad one costs nothing and
 * leaves what is there untouched (out_check_file, or out_check_dir for a folder; NULL and "-" pass): */
int cli_check_out(const char *cmd, const char *opt, const char *path, bool folder);
/* Two options that say the same thing two ways (--global-batch and --batch-per-gpu): "scaleplan CMD: give A or
 * B, not both" and EXIT_INPUT when both were given, the same words in every command. */
int cli_check_not_both(const char *cmd, const char *a, bool has_a, const char *b, bool has_b);
/* --runs-per-month more than fit a month of wall clock at tta_s per run (the fastest option's): */
int cli_check_runs_fit(const char *cmd, const model_money *m, double tta_s);
/* Why row r of sc has no price of kind c ("lambda-hgx-h100 rents at most 8 GPUs at its rate and the database has
 * no rate for more (16 GPUs here)", "dgxh100 has no on-demand rental rate in the database"), written into buf;
 * NULL where it has one. What a "-" in a table or a missing line stands for. */
char *cli_why_unpriced(const model_scenario *sc, const model_cost *cost, plan_cost c, char *buf, size_t len_B);
/* text to out with each line longer than PLAN_TEXT_WIDTH characters broken at blanks (strbuf_add_wrapped). */
void cli_print_wrapped(FILE *out, const char *text);

/* ---- the hardware database (cli/db.c) ---- */
/* Loads the built-in hardware database, then overlays DIR when hwdb_dir is not NULL.
 * Prints every problem to stderr (file:line:column: what was expected; cmd names the command). Returns EXIT_OK,
 * EXIT_INPUT (bad tables; *db left empty) or EXIT_ENV (DIR unreadable). */
int cli_load_db(hw_db *db, const char *cmd, const char *hwdb_dir);
/* Prints "scaleplan WHERE: unknown KIND 'id'; did you mean ..." and returns EXIT_INPUT (HW_NKINDS: any kind). */
int cli_unknown_id(const hw_db *db, const char *where, hw_kind kind, const char *id);


/* ---- what calibrate, validate, plot and campaign share ---- */
/* The measurements `calibrate` and `validate` start from (cli/cal_inputs.c). */
struct cal_data;
struct cal_pset;
typedef struct cli_cal_in {
	bool builtin;             /* the reference tables built into the binary */
	const char *const *paths; /* measurement CSVs, directories, MLLOG logs */
	int npaths;
	double target_top1;       /* for MLLOG logs */
	bool strict;
	const char *where;        /* --where, or NULL */
	const char *profile;      /* a profile to read into the parameter set, or NULL */
} cli_cal_in;
/* Loads in's measurements into d (resolving ids against db), filters them, reads the profile into ps.
 * Prints what went wrong as "scaleplan CMD: ..."; returns EXIT_OK, EXIT_INPUT or EXIT_ENV. */
int cli_cal_inputs(const char *cmd, const hw_db *db, const cli_cal_in *in, struct cal_data *d, struct cal_pset *ps);

/* calibrate's fit (cli/cmd_calibrate.c): in's measurements fitted (calibrate/cal.h cal_fit_all), the
 * parameters, fit error and leave-one-out error printed, the profile written to out. Returns an exit code
 * (message printed). `calibrate` and `campaign` both call it. */
int cli_calibrate_fit(const char *hwdb_dir, const cli_cal_in *in, const char *out);

/* validate (cli/cmd_validate.c) with its options: every measurement predicted without fitting to it, per
 * group (all, whole-run or gpus), printed as format says; --detail's rows through FILE.tmp. Returns an exit
 * code (message printed). `validate` and `campaign` both call it. */
enum { CLI_VALIDATE_MAX_AGAINST = 64 };
typedef struct cli_validate_opts {
	const char *against[CLI_VALIDATE_MAX_AGAINST]; /* measurements: CSVs, directories, MLLOG logs */
	int nagainst;
	bool no_builtin, strict;
	const char *profile, *where, *detail, *hwdb_dir, *intervals, *ratios; /* NULL: not given */
	const char *format;       /* table, csv or md */
	const char *group;        /* all, whole-run or gpus */
} cli_validate_opts;
int cli_validate(const cli_validate_opts *o);

/* validate's whole-run group printed (cli/validate_run.c; scored by calibrate/cal_wholerun.c): the MLPerf
 * v4.0 multi-node results predicted end to end from their submitters' single-node results; format table,
 * md or csv. Returns an exit code. detail: NULL, or a CSV path that gets one row per predicted result and time (group ttt/tta, measured,
 * predicted, error; for `scaleplan plot --kind parity`), written through PATH.tmp. */
int cli_validate_whole_run(const hw_db *db, const char *format, FILE *out, const char *detail);

/* validate's prediction intervals (cli/validate_interval.c): the held-out residuals calibrate/cal_resid.c
 * gathers, then the coverage it prints and the table `--intervals FILE` writes (calibrate/cal_interval.c derives it). */
struct cal_resids;
struct cal_point;
typedef struct cli_interval_in {
	const hw_db *db;
	const struct cal_data *d;
	const char *intervals;    /* --intervals FILE, or NULL */
	const char *ratios;       /* --ratios FILE, or NULL */
	bool builtin;             /* with the built-in MLPerf v4.0 residuals (whole runs, single nodes, start-up) */
	bool md;                  /* the coverage as a Markdown code block */
	/* validate's model column without --measured (the default model) and the stack of a point */
	double (*default_fn)(void *ctx, const struct cal_data *d, int i, const int *others, int nothers);
	void *default_ctx;
	void *transfer_ctx;  /* default_fn's context for the transfer check: each stack's cell on the point's GPU
			      * left out (a generation predicted from the others); NULL = default_ctx */
	const char *(*stack_fn)(const struct cal_point *p);
} cli_interval_in;
/* Adds the built-in MLPerf residuals and pairs to v (with in->builtin), writes in->intervals and in->ratios
 * when set, prints the coverage of both (marginal and ratio intervals) to out (NULL: not).
 * Returns an exit code (message printed). */
int cli_validate_intervals(const cli_interval_in *in, struct cal_resids *v, FILE *out);

/* plot's chart (cli/cmd_plot.c): files[0..nfiles) read in batches into the chart o describes (its kind
 * from the first file's header when PLOT_AUTO), drawn by plot/ as OUT.svg/.png (each checked as an output
 * path before any file is read), listed on stdout. Returns
 * an exit code (message printed). `plot` and `campaign` both call it. */
struct plot_opts;
int cli_plot_files(struct plot_opts *o, const char *cost_col, char *const *files, int nfiles, const char *out);

#endif
