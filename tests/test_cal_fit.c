/* tests for the GSL fitting wrapper, the CSV readers, fits, profiles and hold-out prediction.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal.h"
#include "model/model.h"
#include "calibrate/cal_internal.h"
#include "common/common.h"
#include "hwdb/hw.h"
#include "plan/plan.h"
#include "test.h"

/* r_i = u0 * x_i + u1 - y_i (linear, exact); r ignores u[1] when ctx says so */
typedef struct lin { const double *x, *y; int n; bool ignore_u1; bool fail; } lin;
static int lin_f(const double *u, double *r, void *ctx)
{
	lin *l = ctx;
	if (l->fail)
		return 1;
	for (int i = 0; i < l->n; i++)
		r[i] = u[0] * l->x[i] + (l->ignore_u1 ? 0 : u[1]) - l->y[i];
	return 0;
}

static void test_lsq(test_ctx *t)
{
	double x[] = { 1, 2, 3, 4, 5 }, y[] = { 3.1, 4.9, 7.2, 8.8, 11.1 };
	lin l = { x, y, 5, false, false };
	double u[2] = { 0, 0 };
	cal_lsq p = { .np = 2, .n = 5, .u = u, .f = lin_f, .ctx = &l };
	cal_lsq_result r;
	TEST_CHECK(t, cal_lsq_solve(&p, &r) == 0 && r.converged, "linear fit: %s", r.msg);
	/* ordinary least squares by hand: slope 1.99, intercept 1.05; se(slope) = sqrt(s2 / Sxx) */
	TEST_NEAR(t, u[0], 1.99, 1e-6);
	TEST_NEAR(t, u[1], 1.05, 1e-6);
	double s2 = 0;
	for (int i = 0; i < 5; i++)
		s2 += pow(1.99 * x[i] + 1.05 - y[i], 2);
	s2 /= 3;
	TEST_NEAR(t, r.se_u[0], sqrt(s2 / 10.0), 1e-4);
	TEST_CHECK(t, r.dof == 3 && r.rank == 2, "dof %d rank %d", r.dof, r.rank);

	/* a parameter the residuals do not depend on is reported undetermined, not given a value */
	l.ignore_u1 = true;
	u[0] = u[1] = 0.5;
	TEST_CHECK(t, cal_lsq_solve(&p, &r) == 0 && r.converged, "rank-deficient fit: %s", r.msg);
	TEST_CHECK(t, r.determined[0] && !r.determined[1], "determined %d %d", r.determined[0], r.determined[1]);
	TEST_CHECK(t, r.rank == 1 && strstr(r.msg, "not determined"), "rank %d msg '%s'", r.rank, r.msg);

	/* a model that cannot be evaluated: not converged, with a reason */
	l.fail = true;
	TEST_CHECK(t, cal_lsq_solve(&p, &r) == 0 && !r.converged && r.msg[0], "failing model: converged %d", r.converged);
	/* fewer residuals than parameters: no dof, no standard errors */
	l.fail = false;
	l.ignore_u1 = false;
	p.n = 1;
	l.n = 1;
	TEST_CHECK(t, cal_lsq_solve(&p, &r) == 0 && r.dof == -1 && !isfinite(r.se_u[0]), "n < p: dof %d", r.dof);
}

static bool file_has(const char *path, const char *needle)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, needle) != NULL;
}

static void test_readers(test_ctx *t)
{
	cal_data d;
	cal_data_init(&d);
	const char *csv = "source,machine,gpus,nodes,nccl_mode,dtype,bytes,time_s,algbw_GBps,busbw_GBps\n"
			  "exec,m,2,1,nvlink,bf16,1048576,2e-5,,\n"
			  "exec,m,2,1,nvlink,bf16,lots,2e-5,,\n"
			  "exec,m,1,1,nvlink,bf16,1048576,2e-5,,\n"
			  "exec,m,2,2,emulated-2,bf16,1048576,-1,,\n";
	FILE *errs = tmpfile();
	int rc = cal_data_load_csv_buf(&d, "sweep.csv", csv, strlen(csv), false, errs);
	TEST_CHECK(t, rc == 0 && d.n == 1 && d.nbad == 3, "lenient: rc %d n %d bad %d", rc, d.n, d.nbad);
	char msg[1024] = "";
	rewind(errs);
	msg[fread(msg, 1, sizeof msg - 1, errs)] = '\0';
	fclose(errs);
	TEST_CHECK(t, strstr(msg, "sweep.csv:3:7 (bytes)") && strstr(msg, "sweep.csv:4:") && strstr(msg, "sweep.csv:5:"),
		   "messages: %s", msg);
	rc = cal_data_load_csv_buf(&d, "sweep.csv", csv, strlen(csv), true, NULL);
	TEST_CHECK(t, rc < 0 && strstr(err_msg(), "sweep.csv:3"), "strict: %s", err_msg());
	const char *unk = "a,b\n1,2\n", *ragged = "machine,gpus,bytes,time_s\nm,2,1048576\n";
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "x.csv", unk, strlen(unk), true, NULL) < 0, "unknown header accepted");
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "x.csv", unk, strlen(unk), false, NULL) == 0, "lenient: unknown table not skipped");
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "r.csv", ragged, strlen(ragged), true, NULL) < 0 &&
		      strstr(err_msg(), "r.csv:2"), "ragged row: %s", err_msg());
	int n0 = d.n;
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "r.csv", ragged, strlen(ragged), false, NULL) == 0 && d.n == n0,
		   "lenient: ragged table not skipped (n %d, was %d)", d.n, n0);
	/* found by fuzz-meas: a sweep without a gpus column (read column -1), a huge gpus_per_node (int
	 * overflow) */
	const char *nogpus = "machine,nccl_mode,bytes,time_s\nm,nvlink,1048576,2e-5\n";
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "g.csv", nogpus, strlen(nogpus), true, NULL) < 0 &&
		      strstr(err_msg(), "g.csv:1: header matches no measurement kind"), "no gpus column: %s", err_msg());
	const char *bigg = "machine,gpus,gpus_per_node,throughput_img_s\nm,2,4.2e11,900\nm,2,2,900\n";
	n0 = d.n;
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "b.csv", bigg, strlen(bigg), false, NULL) == 0 && d.n == n0 + 1,
		   "gpus_per_node 4.2e11 not rejected (n %d, was %d)", d.n, n0);
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "b.csv", bigg, strlen(bigg), true, NULL) < 0 &&
		      strstr(err_msg(), "b.csv:2: gpus, nodes, gpus_per_node"), "strict: %s", err_msg());
	cal_data_free(&d);

	/* the built-in tables load, keep their source, and the emulated-node row is read as 2 x 2 */
	cal_data_init(&d);
	TEST_CHECK(t, cal_data_load_builtin(&d, stderr) == 0, "builtin: %s", err_msg());
	int emu = 0, nthr = 0, npt = 0;
	for (int i = 0; i < d.n; i++) {
		const cal_point *p = &d.pts[i];
		TEST_CHECK(t, p->source[0] && p->line > 1, "%s:%d has a source", p->file, p->line);
		/* the framework cell, lower case (validate maps it to a stack): throughput.csv:5 is PyTorch */
		if (strcmp(p->file, "refdata/throughput.csv") == 0 && p->line == 5)
			npt += strcmp(p->framework, "pytorch") == 0;
		if (p->kind == CAL_THROUGHPUT)
			nthr++;
		if (p->kind == CAL_THROUGHPUT && p->nodes == 2 && p->gpus_per_node == 2 && strcmp(p->inter, "socket") == 0)
			emu++;
	}
	/* 16 rows of refdata/throughput.csv (its MLPerf rows before v4.0 are hold-out, not shipped) + 11 of
	 * refdata/testbed_pytorch.csv */
	TEST_CHECK(t, nthr == 27 && emu == 1, "throughput rows %d, emulated 2x2 rows %d", nthr, emu);
	TEST_CHECK(t, npt == 1, "throughput.csv:5 framework read as 'pytorch': %d", npt);
	cal_data_free(&d);
}

static int count_kind(const cal_data *d, cal_kind k)
{
	int n = 0;
	for (int i = 0; i < d->n; i++)
		n += d->pts[i].kind == k;
	return n;
}

/* A 2-GPU exec run writes out.csv and out.rank1.csv, each with the job's img/s in its run row: they are
 * one measurement (one point, the ranks' all-reduce times averaged), not two. The same run_id in another
 * folder, in another file of the folder (exec's default run_id "run" is shared by separate runs) or with
 * another configuration is another run. Each run also gives one all-reduce point of its transport: its
 * in-step all-reduce time (the ranks' mean). */
static void test_rank_files(test_ctx *t)
{
	const char *hdr = "source,run_id,machine,gpu,nodes,gpus_per_node,gpus,nccl_mode,batch_per_gpu,global_batch,"
			  "precision,data,epoch,iters,throughput_img_s,allreduce_s\n";
	const char *r0 = "exec,g2,m,H100,1,2,2,nvlink,256,512,bf16,synthetic,,40,13887,0.0007\n"
			 "exec,g2,m,H100,1,2,2,nvlink,256,512,bf16,synthetic,1,40,13887,0.0007\n";
	const char *r1 = "exec,g2,m,H100,1,2,2,nvlink,256,512,bf16,synthetic,,40,13887,0.0009\n";
	const char *b128 = "exec,g2,m,H100,1,2,2,nvlink,128,256,bf16,synthetic,,40,12000,0.0005\n";
	char *a = xasprintf("%s%s", hdr, r0), *b = xasprintf("%s%s", hdr, r1), *c = xasprintf("%s%s", hdr, b128);
	cal_data d;
	cal_data_init(&d);
	int rc = cal_data_load_csv_buf(&d, "camp/g2.csv", a, strlen(a), true, NULL);
	rc |= cal_data_load_csv_buf(&d, "camp/g2.rank1.csv", b, strlen(b), true, NULL);
	TEST_CHECK(t, rc == 0 && count_kind(&d, CAL_THROUGHPUT) == 1, "two ranks of one run: %d throughput points (rc %d)",
		   count_kind(&d, CAL_THROUGHPUT), rc);
	if (d.n >= 1)
		TEST_CHECK(t, d.pts[0].nranks == 2 && fabs(d.pts[0].measured - 13887) < 1e-9 &&
			      fabs(d.pts[0].meas_comm_s - 0.0008) < 1e-12,
			   "combined: ranks %d, img/s %g, allreduce %g s", d.pts[0].nranks, d.pts[0].measured,
			   d.pts[0].meas_comm_s);
	TEST_CHECK(t, d.n == 2 && d.pts[0].step_ar == 1 && d.pts[1].kind == CAL_ALLREDUCE && d.pts[1].step_grads &&
		      fabs(d.pts[1].measured - 0.0008) < 1e-12 && strcmp(d.pts[1].intra, "nvlink") == 0,
		   "the run's in-step all-reduce: %d points, measured %g s", d.n, d.n > 1 ? d.pts[1].measured : NAN);
	rc = cal_data_load_csv_buf(&d, "other/g2.rank1.csv", b, strlen(b), true, NULL);
	rc |= cal_data_load_csv_buf(&d, "camp/g2.rank2.csv", c, strlen(c), true, NULL);
	rc |= cal_data_load_csv_buf(&d, "camp/g2b.csv", b, strlen(b), true, NULL);
	TEST_CHECK(t, rc == 0 && count_kind(&d, CAL_THROUGHPUT) == 4 && count_kind(&d, CAL_ALLREDUCE) == 4,
		   "another folder / batch / file: %d points, want 4 runs and their 4 all-reduces", d.n);
	/* a repeat of the run appended to the same file is another measurement */
	char *rep = xasprintf("%s%s%s", hdr, r1, r1);
	rc = cal_data_load_csv_buf(&d, "camp/rep.csv", rep, strlen(rep), true, NULL);
	TEST_CHECK(t, rc == 0 && count_kind(&d, CAL_THROUGHPUT) == 6, "two rows of one file: %d throughput points, want 6",
		   count_kind(&d, CAL_THROUGHPUT));
	free(rep);
	cal_data_free(&d);
	free(a);
	free(b);
	free(c);
}

/* One all-reduce: calibrate's prior prediction of a sweep point is the model's own (model_allreduce_s on
 * the scenario plan_resolve builds), also where the model's description is not two rings: 4 nodes (the
 * model takes the faster of ring and tree between nodes) and 8 trays of one NVL72 rack (one NVLink
 * domain of 32 GPUs, no network). */
static void test_one_allreduce(test_ctx *t, const hw_db *db)
{
	static const struct { const char *sys; int nodes, gpn; } c[] = {
		{ "dgxh100", 1, 8 }, { "dgxh100", 4, 8 }, { "dgxh100", 4, 1 }, { "gb200-nvl72", 8, 4 },
	};
	model_params mp;
	model_params_default(&mp);
	cal_opts o = { .db = db };
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		char *csv = xasprintf("machine,gpus,nodes,nccl_mode,bytes,time_s\n%s,%d,%d,nvlink,1048576,1e-4\n", c[k].sys,
				      c[k].nodes * c[k].gpn, c[k].nodes);
		cal_data d;
		cal_data_init(&d);
		int rc = cal_data_load_csv_buf(&d, "ar.csv", csv, strlen(csv), true, NULL);
		plan_spec s;
		plan_spec_init(&s);
		s.system_id = c[k].sys;
		s.nodes = c[k].nodes;
		s.gpus_per_node = c[k].gpn;
		model_scenario sc;
		rc |= plan_resolve(db, &s, &mp, NULL, c[k].gpn, c[k].nodes, &sc);
		TEST_CHECK(t, rc == 0 && d.n == 1, "%s %dx%d: load/resolve: %s", c[k].sys, c[k].nodes, c[k].gpn, err_msg());
		if (rc == 0 && d.n == 1) {
			cal_pset ps;
			cal_pset_init(&ps);
			double want = model_allreduce_s(&sc, &mp, 1048576), got = cal_predict(&ps, &d, 0, &o);
			TEST_CHECK(t, fabs(got / want - 1) < 1e-9, "%s %dx%d: calibrate %.4g s, model %.4g s", c[k].sys,
				   c[k].nodes, c[k].gpn, got, want);
			cal_pset_free(&ps);
		}
		cal_data_free(&d);
		free(csv);
	}
}

/* One model for compute too: calibrate's prediction of a throughput point with nothing fitted (compute_eff,
 * b_half, overlap and the link levels at their priors) is model_predict's throughput on the scenario
 * `predict` builds for it, wherever the model's GPU step sets the pace (not its CPU data pipeline, which
 * calibrate fits on its own) and the file does not give the run's gradient bytes. */
static void test_one_compute(test_ctx *t, const hw_db *db)
{
	cal_data d;
	cal_data_init(&d);
	TEST_CHECK(t, cal_data_load_builtin(&d, NULL) == 0, "builtin: %s", err_msg());
	cal_data_canonical(&d, db);
	model_params mp;
	model_params_default(&mp);
	cal_mcol m = {.db = db, .params = &mp};
	cal_opts o = {.db = db};
	int nsame = 0, nmulti = 0;
	for (int i = 0; i < d.n; i++) {
		const cal_point *p = &d.pts[i];
		if (p->kind != CAL_THROUGHPUT || !cal_point_describable(p))
			continue;
		double want = cal_mcol_point(&m, &d, i, NULL, 0);
		plan_spec s;
		plan_spec_init(&s);
		s.system_id = p->machine;
		s.stack_id = cal_point_stack(p);
		s.batch_per_gpu = cal_point_batch(p);
		model_scenario sc;
		model_result r;
		if (!isfinite(want) || plan_resolve(db, &s, &mp, NULL, p->gpus_per_node, p->nodes, &sc) ||
		    model_predict(&sc, &mp, &r) || r.bottleneck != MODEL_BN_COMPUTE)
			continue;
		if (p->grad_B_said)   /* the run's own gradient bytes: not the stack's */
			continue;
		cal_pset ps;
		cal_pset_init(&ps);
		double got = cal_predict(&ps, &d, i, &o);
		cal_pset_free(&ps);
		TEST_CHECK(t, fabs(got / want - 1) < 1e-9, "%s:%d (%d GPUs): calibrate %.6g img/s, model %.6g", p->file, p->line,
			   p->gpus, got, want);
		nsame++;
		nmulti += p->gpus > 1;
	}
	TEST_CHECK(t, nsame >= 8 && nmulti >= 3, "compared %d points (%d on several GPUs)", nsame, nmulti);
	cal_data_free(&d);
	/* the explicit mapping: an engine run on a machine the database does not know ("local") is its GPU's
	 * work on a system that holds that GPU; neither machine nor GPU known: no prediction */
	static const char csv[] = "source,machine,gpu,nodes,gpus_per_node,gpus,batch_per_gpu,precision,data,throughput_img_s\n"
				  "exec,local,H100-SXM5-80GB,1,1,1,256,bf16,synthetic,7000\n"
				  "exec,testbed-h100x1,H100-SXM5-80GB,1,1,1,256,bf16,synthetic,7000\n"
				  "exec,local,no-such-gpu,1,1,1,256,bf16,synthetic,7000\n";
	cal_data_init(&d);
	int rc = cal_data_load_csv_buf(&d, "local.csv", csv, strlen(csv), true, NULL);
	TEST_CHECK(t, rc == 0 && d.n == 3, "local.csv: %d points: %s", d.n, err_msg());
	if (rc == 0 && d.n == 3) {
		cal_pset ps;
		cal_pset_init(&ps);
		double local = cal_predict(&ps, &d, 0, &o), known = cal_predict(&ps, &d, 1, &o);
		double none = cal_predict(&ps, &d, 2, &o);
		TEST_CHECK(t, isfinite(known) && fabs(local / known - 1) < 1e-12 && isnan(none),
			   "local %g, testbed-h100x1 %g, unknown GPU %g img/s", local, known, none);
		cal_pset_free(&ps);
	}
	cal_data_free(&d);
}

/* What calibrate fits is what predicts: engine runs of one H100 at three batches give compute_eff and b_half;
 * `predict --profile` (model_params_load, then plan_resolve + model_predict of the same run) gives
 * calibrate's own fitted throughput back at each batch. */
static void test_profile_compute(test_ctx *t, const hw_db *db)
{
	static const char csv[] = "source,machine,gpu,nodes,gpus_per_node,gpus,batch_per_gpu,precision,data,throughput_img_s\n"
				  "exec,testbed-h100x1,H100-SXM5-80GB,1,1,1,64,bf16,synthetic,5847\n"
				  "exec,testbed-h100x1,H100-SXM5-80GB,1,1,1,128,bf16,synthetic,6516\n"
				  "exec,testbed-h100x1,H100-SXM5-80GB,1,1,1,256,bf16,synthetic,7069\n";
	cal_data d;
	cal_data_init(&d);
	cal_pset ps;
	cal_pset_init(&ps);
	cal_opts o = {.db = db};
	cal_summary sum;
	int rc = cal_data_load_csv_buf(&d, "h100.csv", csv, strlen(csv), true, NULL);
	rc |= cal_fit_all(&ps, &d, &o, &sum);
	TEST_CHECK(t, rc == 0 && d.n == 3 && sum.nfailed == 0, "fit: %s", err_msg());
	const char *path = "build/tests/cal_profile_compute.csv";
	model_params mp;
	model_params_default(&mp);
	rc |= cal_pset_write(&ps, path, &o);
	rc |= model_params_load(&mp, path);
	TEST_CHECK(t, rc == 0 && mp.compute_eff > 0 && mp.compute_eff != 1.0, "profile: compute_eff %g: %s", mp.compute_eff,
		   err_msg());
	for (int i = 0; rc == 0 && i < d.n; i++) {
		plan_spec s;
		plan_spec_init(&s);
		s.system_id = "testbed-h100x1";
		s.stack_id = "scaleplan-train";
		s.data = MODEL_DATA_SYNTHETIC;
		s.batch_per_gpu = (int)d.pts[i].batch_per_gpu;
		model_scenario sc;
		model_result r;
		double want = cal_predict(&ps, &d, i, &o);
		TEST_CHECK(t, plan_resolve(db, &s, &mp, NULL, 1, 1, &sc) == 0 && model_predict(&sc, &mp, &r) == 0 &&
				      fabs(r.throughput_img_s / want - 1) < 1e-6,
			   "batch %d: predict --profile %.6g img/s, calibrate %.6g", s.batch_per_gpu, r.throughput_img_s, want);
	}
	cal_pset_free(&ps);
	cal_data_free(&d);
	remove(path);
}

/* The profile writes a fitted busbw as bw_eff_* relative to the link of the node plan_resolve builds, so
 * that `predict --profile` gets the fitted busbw back on that system; a transport the database cannot
 * describe (NCCL over host memory on an NVLink machine) writes no bw_eff_* row. */
static void test_profile_links(test_ctx *t, const hw_db *db)
{
	model_params mp;
	model_params_default(&mp);
	plan_spec s;
	plan_spec_init(&s);
	s.system_id = "dgxh100";
	model_scenario one, two;
	int rc = plan_resolve(db, &s, &mp, NULL, 0, 1, &one);
	rc |= plan_resolve(db, &s, &mp, NULL, 0, 2, &two);
	TEST_CHECK(t, rc == 0, "resolve dgxh100: %s", err_msg());
	if (rc)
		return;
	double link_intra = one.node.intra_bw_Bps, link_net = two.node.nic_Bps * two.node.nics_per_node;
	cal_pset ps;
	cal_pset_init(&ps);
	struct { const char *scope; double v; } b[] = {
		{ "dgxh100|nvlink", 0.4 * link_intra }, { "dgxh100|ib", 0.6 * link_net }, { "testbed-h200x4|shm", 26e9 },
	};
	for (size_t k = 0; k < sizeof b / sizeof b[0]; k++) {
		int i = cal_pset_get(&ps, "busbw_Bps", b[k].scope, b[k].v, "B/s");
		ps.p[i].status = CAL_FITTED;
		ps.p[i].se = 0.01 * b[k].v;
	}
	cal_opts o = { .db = db };
	const char *path = "build/tests/cal_profile_links.csv";
	TEST_CHECK(t, cal_pset_write(&ps, path, &o) == 0, "write: %s", err_msg());
	model_params back;
	model_params_default(&back);
	TEST_CHECK(t, model_params_load(&back, path) == 0, "load: %s", err_msg());
	TEST_NEAR(t, back.bw_eff_nvlink, 0.4, 1e-6);
	TEST_NEAR(t, back.bw_eff_net, 0.6, 1e-6);
	TEST_CHECK(t, back.bw_eff_pcie == mp.bw_eff_pcie && !file_has(path, "bw_eff_pcie"),
		   "shm on an NVLink machine written as bw_eff_pcie %g", back.bw_eff_pcie);
	cal_pset_free(&ps);
	remove(path);
}

/* validate's model column (cal_mcol_point): every built-in throughput point the database can describe is
 * predicted by plan_resolve + model_predict (the same number as a direct call), the test beds' socket and
 * host-memory points are not, and each prediction is tallied under its stack. */
static void test_model_column(test_ctx *t, const hw_db *db)
{
	cal_data d;
	cal_data_init(&d);
	TEST_CHECK(t, cal_data_load_builtin(&d, NULL) == 0, "builtin: %s", err_msg());
	cal_data_canonical(&d, db);
	model_params mp;
	model_params_default(&mp);
	cal_mcol m = {.db = db, .params = &mp};
	int ncalls = 0, nsock = 0, nstacked = 0;
	for (int i = 0; i < d.n; i++) {
		const cal_point *p = &d.pts[i];
		if (p->kind != CAL_THROUGHPUT || !p->machine[0])
			continue;
		double pred = cal_mcol_point(&m, &d, i, NULL, 0);
		ncalls += cal_point_describable(p);
		if (!cal_point_describable(p)) {
			nsock++;
			TEST_CHECK(t, isnan(pred), "%s:%d (%s/%s) predicted %g", p->file, p->line, p->intra, p->inter, pred);
			continue;
		}
		if (!isfinite(pred))
			continue;
		nstacked += cal_point_stack(p) != NULL;
		plan_spec s;
		plan_spec_init(&s);
		s.system_id = p->machine;
		s.stack_id = cal_point_stack(p);
		s.precision = (model_precision)model_precision_parse(strstr(p->precision, "bf16") ? "bf16"
								     : strstr(p->precision, "fp16") || strstr(p->precision, "amp") ? "fp16"
								     : strstr(p->precision, "tf32") ? "tf32" : "fp32");
		s.data = strcmp(p->data, "synthetic") == 0 ? MODEL_DATA_SYNTHETIC
			 : strstr(p->source, "nvidia") || strstr(p->source, "mlperf") ? MODEL_DATA_GPU : MODEL_DATA_CPU;
		s.batch_per_gpu = cal_point_batch(p);
		s.nodes = p->nodes;
		model_scenario sc;
		model_result r;
		if (plan_resolve(db, &s, &mp, NULL, p->gpus_per_node, p->nodes, &sc) == 0 && model_predict(&sc, &mp, &r) == 0)
			TEST_NEAR(t, pred, r.throughput_img_s, 1e-9);
	}
	int ntally = 0;
	for (int k = 0; k < m.nstacks; k++)
		ntally += m.stacks[k].n;
	TEST_CHECK(t, m.npred + m.nfail == ncalls && m.npred > 20, "predicted %d, failed %d, describable %d", m.npred,
		   m.nfail, ncalls);
	TEST_CHECK(t, nsock >= 2 && ntally == nstacked, "socket/shm points %d; tallied %d of %d with a stack", nsock,
		   ntally, nstacked);
	cal_data_free(&d);
}

/* The run-level fit goes into model_params whole (validate's whole-run group predicts with it). */
static void test_phase_apply(test_ctx *t)
{
	cal_phase_fit f;
	memset(&f, 0, sizeof f);
	double *v[] = {&f.startup_s, &f.startup_per_log2_node_s, &f.startup_per_sqrt_node_s, &f.startup_per_node_s,
		       &f.run_lead_s, &f.run_lead_steps, &f.cold_read_Bps, &f.cold_read_node_exp, &f.eval_fixed_s,
		       &f.eval_step_frac, &f.epoch_boundary_s, &f.epoch_boundary_iters};
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
		*v[k] = 10.0 + (double)k;
	f.cold_pairs = 2;
	model_params p;
	model_params_default(&p);
	cal_phase_fit_apply(&f, &p);
	double got[] = {p.startup_s, p.startup_per_log2_node_s, p.startup_per_sqrt_node_s, p.startup_per_node_s,
			p.run_lead_s, p.run_lead_steps, p.cold_read_Bps, p.cold_read_node_exp, p.eval_fixed_s,
			p.eval_step_frac, p.epoch_boundary_s, p.epoch_boundary_iters};
	for (size_t k = 0; k < sizeof got / sizeof got[0]; k++)
		TEST_CHECK(t, got[k] == 10.0 + (double)k, "field %zu: %g", k, got[k]);
	f.cold_pairs = 0;
	cal_phase_fit_apply(&f, &p);
	TEST_CHECK(t, p.cold_read_node_exp == 1.0, "no multi-node pair: node exponent %g, want 1", p.cold_read_node_exp);
}

/* refdata/throughput.csv: fitting c4130-p100 on its 1-GPU row predicts its 4- and 8-GPU rows
 * within 5%. */
static void test_c4130(test_ctx *t, const hw_db *db)
{
	cal_data d;
	cal_data_init(&d);
	cal_data_load_builtin(&d, NULL);
	TEST_CHECK(t, cal_data_filter(&d, "machine=c4130-p100,kind=throughput") == 0 && d.n == 3, "c4130 rows %d", d.n);
	cal_data fit;
	cal_data_init(&fit);
	cal_data_load_builtin(&fit, NULL);
	cal_data_filter(&fit, "machine=c4130-p100,kind=throughput,gpus=1");
	TEST_CHECK(t, fit.n == 1, "1-GPU rows %d", fit.n);
	cal_pset ps;
	cal_pset_init(&ps);
	cal_opts o = { .db = db };
	cal_summary s;
	TEST_CHECK(t, cal_fit_all(&ps, &fit, &o, &s) == 0 && s.nfailed == 0, "fit failed");
	for (int i = 0; i < d.n; i++) {
		double pr = cal_predict(&ps, &d, i, &o);
		double err = pr / d.pts[i].measured - 1;
		printf("c4130-p100 %d GPU: predicted %.0f, measured %.0f, error %+.1f%%\n", d.pts[i].gpus, pr,
		       d.pts[i].measured, 100 * err);
		TEST_CHECK(t, fabs(err) <= 0.05, "c4130 %d GPUs: error %.1f%% > 5%%", d.pts[i].gpus, 100 * err);
	}
	/* the profile round-trips, has no NaN, and model_params_load-style rows */
	const char *path = "build/tests/cal_profile_test.csv";
	TEST_CHECK(t, cal_pset_write(&ps, path, &o) == 0, "write: %s", err_msg());
	TEST_CHECK(t, !file_has(path, "nan") && !file_has(path, "NaN") && !file_has(path, "inf"), "NaN in profile");
	cal_pset back;
	cal_pset_init(&back);
	TEST_CHECK(t, cal_pset_load(&back, path) == 0 && back.n == ps.n, "load: %s (n %d vs %d)", err_msg(), back.n, ps.n);
	for (int i = 0; i < d.n && back.n == ps.n; i++)
		TEST_NEAR(t, cal_predict(&back, &d, i, &o), cal_predict(&ps, &d, i, &o), 1e-6);
	cal_pset_free(&back);
	cal_pset_free(&ps);
	cal_data_free(&fit);
	cal_data_free(&d);
}

/* Synthetic sweep with known alpha and busbw: the fit recovers them, with standard errors. */
static void test_sweep_recovery(test_ctx *t, const hw_db *db)
{
	char csv[4096];
	int at = snprintf(csv, sizeof csv, "machine,gpus,nodes,nccl_mode,bytes,time_s\n");
	const double a = 9e-6, bw = 2.5e11;
	for (int g = 2; g <= 4; g += 2)
		for (double s = 1 << 20; s <= (1 << 28); s *= 4) {
			double tm = 2.0 * (g - 1) * a + 2.0 * (g - 1) / g * s / bw;
			tm *= 1 + 0.01 * sin(s + g); /* 1% deterministic "noise" */
			at += snprintf(csv + at, sizeof csv - (size_t)at, "x,%d,1,nvlink,%.0f,%.9g\n", g, s, tm);
		}
	cal_data d;
	cal_data_init(&d);
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "syn.csv", csv, strlen(csv), true, NULL) == 0, "load: %s", err_msg());
	cal_pset ps;
	cal_pset_init(&ps);
	cal_opts o = { .db = db };
	cal_summary s;
	TEST_CHECK(t, cal_fit_all(&ps, &d, &o, &s) == 0 && s.nfailed == 0, "fit");
	int ia = cal_pset_find(&ps, "alpha_s", "x|nvlink"), ib = cal_pset_find(&ps, "busbw_Bps", "x|nvlink");
	TEST_CHECK(t, ia >= 0 && ib >= 0, "params present");
	if (ia >= 0 && ib >= 0) {
		TEST_NEAR(t, ps.p[ia].value, a, 0.05);
		TEST_NEAR(t, ps.p[ib].value, bw, 0.02);
		TEST_CHECK(t, ps.p[ib].status == CAL_FITTED && ps.p[ib].se > 0 && ps.p[ib].se < 0.02 * bw,
			   "busbw se %g", ps.p[ib].se);
	}
	TEST_CHECK(t, s.fit_mape < 0.01 && s.loo_mape < 0.02, "fit %g loo %g", s.fit_mape, s.loo_mape);
	cal_pset_free(&ps);
	cal_data_free(&d);
}

/* One batch size only: b_half is not fitted (stays the prior); overlap with fully hidden comm is
 * reported undetermined; nothing NaN reaches the profile. */
static void test_undetermined(test_ctx *t, const hw_db *db)
{
	const char *csv = "source,machine,gpu,gpus,nodes,gpus_per_node,nccl_mode,batch_per_gpu,precision,throughput_img_s\n"
			  "exec,m,H200-SXM-141GB,1,1,1,nvlink,256,bf16,3000\n"
			  "exec,m,H200-SXM-141GB,2,1,2,nvlink,256,bf16,5990\n";
	cal_data d;
	cal_data_init(&d);
	cal_data_load_csv_buf(&d, "u.csv", csv, strlen(csv), true, NULL);
	cal_pset ps;
	cal_pset_init(&ps);
	cal_opts o = { .db = db };
	cal_summary s;
	TEST_CHECK(t, cal_fit_all(&ps, &d, &o, &s) == 0, "fit");
	int ib = cal_pset_find(&ps, "b_half", "m|H200-SXM-141GB|bf16|scaleplan-train");
	TEST_CHECK(t, ib >= 0 && ps.p[ib].status == CAL_PRIOR, "b_half status %d", ib >= 0 ? (int)ps.p[ib].status : -1);
	int io = cal_pset_find(&ps, "overlap", "m|H200-SXM-141GB|bf16|scaleplan-train");
	TEST_CHECK(t, io >= 0 && (ps.p[io].status == CAL_UNDETERMINED || ps.p[io].status == CAL_EXACT),
		   "overlap status %s", io >= 0 ? cal_pstatus_name(ps.p[io].status) : "absent");
	const char *path = "build/tests/cal_profile_und.csv";
	TEST_CHECK(t, cal_pset_write(&ps, path, &o) == 0, "write");
	TEST_CHECK(t, !file_has(path, "nan") && !file_has(path, "inf"), "NaN in profile");
	cal_pset_free(&ps);
	cal_data_free(&d);
}

/* The bucket pipeline: with one bucket (bucket_mb above the gradient) nothing can overlap, so an
 * overlapped run predicts exactly the no-overlap run; 25 MiB buckets hide part of the all-reduce. */
static void test_bucket_pipeline(test_ctx *t, const hw_db *db)
{
	const char *csv = "source,run_id,machine,gpu,gpus,nodes,gpus_per_node,nccl_mode,batch_per_gpu,precision,"
			  "throughput_img_s,grad_precision,bucket_mb\n"
			  "exec,one,m,H200-SXM-141GB,2,2,1,emulated-2,256,bf16,9000,fp32,1000\n"
			  "exec,one-no-overlap,m,H200-SXM-141GB,2,2,1,emulated-2,256,bf16,9000,fp32,1000\n"
			  "exec,four,m,H200-SXM-141GB,2,2,1,emulated-2,256,bf16,9000,fp32,25\n"
			  "exec,four-no-overlap,m,H200-SXM-141GB,2,2,1,emulated-2,256,bf16,9000,fp32,25\n";
	cal_data d;
	cal_data_init(&d);
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "b.csv", csv, strlen(csv), true, NULL) == 0 && d.n == 4, "load: %s",
		   err_msg());
	if (d.n != 4) {
		cal_data_free(&d);
		return;
	}
	TEST_CHECK(t, d.pts[0].bucket_B == 1000.0 * 1048576 && d.pts[2].bucket_B == 25.0 * 1048576, "bucket_mb read");
	TEST_CHECK(t, !d.pts[0].no_overlap && d.pts[1].no_overlap, "no-overlap run id");
	cal_pset ps;
	cal_pset_init(&ps);
	cal_opts o = { .db = db };
	double v[4];
	for (int i = 0; i < 4; i++)
		v[i] = cal_predict(&ps, &d, i, &o);
	TEST_CHECK(t, isfinite(v[0]) && v[0] > 0, "prediction %g", v[0]);
	TEST_NEAR(t, v[0], v[1], 1e-12);
	/* the no-overlap runs differ only by the latency of 3 more buckets: 2 ring steps each */
	TEST_CHECK(t, v[3] < v[1] && v[3] > 0.99 * v[1], "no-overlap 1 bucket %g, 4 buckets %g", v[1], v[3]);
	TEST_CHECK(t, v[2] > 1.02 * v[3], "overlapped 25 MiB buckets %g vs not %g", v[2], v[3]);
	cal_pset_free(&ps);
	cal_data_free(&d);
}

/* Contention (exec --load gemm sweep columns): the factors are fitted from the ratios; factors of 1
 * change nothing; slowdowns lower an engine run's prediction and leave another program's alone. */
static void test_contention(test_ctx *t, const hw_db *db)
{
	const char *head = "source,machine,gpus,nodes,nccl_mode,dtype,bytes,time_s,algbw_GBps,busbw_GBps,load,"
			   "load_alone_s,load_loaded_s,time_loaded_s\n";
	const char *runs = "source,run_id,machine,gpu,gpus,nodes,gpus_per_node,nccl_mode,batch_per_gpu,precision,"
			   "throughput_img_s,grad_precision,bucket_mb\n"
			   "exec,a,m,H200-SXM-141GB,2,2,1,emulated-2,256,bf16,9000,fp32,25\n"
			   "torch_ddp,b,m,H200-SXM-141GB,2,2,1,emulated-2,256,bf16,9000,fp32,25\n";
	/* variant 0: no load columns; 1: load without contention (ratios 1); 2: comm x1.5, GEMMs x1.2 */
	const double comm_x[3] = { 0, 1.0, 1.5 }, gemm_x[3] = { 0, 1.0, 1.2 };
	double pred[3][2];
	for (int v = 0; v < 3; v++) {
		char csv[4096];
		int at = snprintf(csv, sizeof csv, "%s", head);
		for (double b = 4 << 20; b <= (64 << 20); b *= 2) {
			double ts = 1e-4 + b / 3e9;
			at += snprintf(csv + at, sizeof csv - (size_t)at, "exec,m,2,2,emulated-2,fp32,%.0f,%.9g,,", b, ts);
			if (v)
				at += snprintf(csv + at, sizeof csv - (size_t)at, ",gemm,2e-4,%.9g,%.9g\n",
					       2e-4 * gemm_x[v] * (1 + 0.002 * sin(b)), comm_x[v] * ts);
			else
				at += snprintf(csv + at, sizeof csv - (size_t)at, ",,,,\n");
		}
		cal_data d;
		cal_data_init(&d);
		TEST_CHECK(t, cal_data_load_csv_buf(&d, "s.csv", csv, strlen(csv), true, NULL) == 0, "sweep: %s", err_msg());
		int nc = 0;
		for (int i = 0; i < d.n; i++)
			nc += d.pts[i].kind == CAL_CONTENTION;
		TEST_CHECK(t, nc == (v ? 10 : 0), "variant %d: contention points %d (5 rows x comm + compute)", v, nc);
		cal_pset ps;
		cal_pset_init(&ps);
		cal_opts o = { .db = db };
		cal_summary sm;
		TEST_CHECK(t, cal_fit_all(&ps, &d, &o, &sm) == 0 && sm.nfailed == 0, "variant %d: fit", v);
		int ic = cal_pset_find(&ps, "slowdown_compute", "m|socket"), ia = cal_pset_find(&ps, "slowdown_comm", "m|socket");
		TEST_CHECK(t, v == 0 || (ic >= 0 && ia >= 0), "variant %d: slowdown parameters", v);
		if (v && ic >= 0 && ia >= 0) {
			TEST_NEAR(t, ps.p[ia].value, comm_x[v], 1e-6);
			TEST_NEAR(t, ps.p[ic].value, gemm_x[v], 0.003);
		}
		if (v == 2) {   /* the profile carries them to the full model by link level (sockets: net) */
			const char *path = "build/tests/cal_profile_contention.csv";
			TEST_CHECK(t, cal_pset_write(&ps, path, &o) == 0, "write: %s", err_msg());
			model_params mp;
			model_params_default(&mp);
			TEST_CHECK(t, model_params_load(&mp, path) >= 0, "load: %s", err_msg());
			TEST_NEAR(t, mp.slowdown_comm_net, comm_x[v], 1e-6);
			TEST_NEAR(t, mp.slowdown_compute_net, gemm_x[v], 0.003);
			TEST_CHECK(t, mp.slowdown_compute_nvlink == 1.0, "other levels untouched");
		}
		cal_data_free(&d);
		cal_data_init(&d);
		TEST_CHECK(t, cal_data_load_csv_buf(&d, "r.csv", runs, strlen(runs), true, NULL) == 0 && d.n == 2, "runs");
		for (int i = 0; i < 2 && i < d.n; i++)
			pred[v][i] = cal_predict(&ps, &d, i, &o);
		cal_pset_free(&ps);
		cal_data_free(&d);
	}
	TEST_CHECK(t, isfinite(pred[0][0]) && fabs(pred[1][0] / pred[0][0] - 1) < 1e-9, "factors of 1: %g vs %g",
		   pred[1][0], pred[0][0]);
	TEST_CHECK(t, pred[2][0] < 0.97 * pred[1][0], "engine run under contention %g vs %g", pred[2][0], pred[1][0]);
	TEST_NEAR(t, pred[2][1], pred[1][1], 1e-12);
}

/* validate: leave-one-out and profile-only predictions of the synthetic 2x H200 set; filters. */
static void test_validate(test_ctx *t, const hw_db *db)
{
	cal_data d;
	cal_data_init(&d);
	TEST_CHECK(t, cal_data_load_path(&d, "tests/data/cal/h200x2", NAN, true, NULL) == 0, "load: %s", err_msg());
	cal_data_canonical(&d, db);
	int nthr = 0, nar = 0, nstep = 0, nmulti = 0;
	for (int i = 0; i < d.n; i++) {
		nthr += d.pts[i].kind == CAL_THROUGHPUT;
		nar += d.pts[i].kind == CAL_ALLREDUCE && !d.pts[i].step_grads;
		nstep += d.pts[i].step_grads;
		nmulti += d.pts[i].kind == CAL_THROUGHPUT && d.pts[i].gpus > 1 && d.pts[i].meas_comm_s > 0 &&
			  !d.pts[i].no_overlap;
		if (d.pts[i].kind == CAL_THROUGHPUT)
			TEST_CHECK(t, strcmp(d.pts[i].machine, "testbed-h200x2") == 0, "alias not resolved: %s", d.pts[i].machine);
	}
	/* 6 run rows (per-rank rows skipped), 10 sweep rows of >= 1 MiB (the 1 KiB rows skipped) */
	TEST_CHECK(t, nthr == 6 && nar == 10, "throughput %d, all-reduce %d", nthr, nar);
	/* each overlapped multi-GPU run with a timed all-reduce gives one in-step all-reduce point */
	TEST_CHECK(t, nstep == nmulti && nstep > 0, "in-step all-reduce points %d for %d runs", nstep, nmulti);
	TEST_CHECK(t, cal_data_filter(&d, "gpus=") < 0 && cal_data_filter(&d, "colour=red") < 0, "bad --where accepted");
	/* negation: throughput points over sockets go, the sweeps (over sockets too) stay */
	cal_data neg;
	cal_data_init(&neg);
	cal_data_load_path(&neg, "tests/data/cal/h200x2", NAN, true, NULL);
	TEST_CHECK(t, cal_data_filter(&neg, "inter!=socket") == 0, "filter: %s", err_msg());
	int nt = 0, na = 0;
	for (int i = 0; i < neg.n; i++) {
		nt += neg.pts[i].kind == CAL_THROUGHPUT;
		na += neg.pts[i].kind == CAL_ALLREDUCE && !neg.pts[i].step_grads;
	}
	TEST_CHECK(t, nt == 4 && na == 10, "inter!=socket kept %d throughput, %d all-reduce", nt, na);
	cal_data_free(&neg);
	/* a fit on the 1-GPU runs keeps the sweeps but none of the 2-GPU runs' in-step all-reduces */
	cal_data one;
	cal_data_init(&one);
	cal_data_load_path(&one, "tests/data/cal/h200x2", NAN, true, NULL);
	TEST_CHECK(t, cal_data_filter(&one, "gpus=1") == 0, "filter: %s", err_msg());
	int sweeps = 0, steps = 0, links_ok = 1;
	for (int i = 0; i < one.n; i++) {
		sweeps += one.pts[i].kind == CAL_ALLREDUCE && !one.pts[i].step_grads;
		steps += one.pts[i].step_grads;
		links_ok &= one.pts[i].step_ar == -1;
	}
	TEST_CHECK(t, sweeps == 10 && steps == 0 && links_ok, "gpus=1 kept %d sweeps, %d in-step all-reduces", sweeps, steps);
	cal_data_free(&one);
	cal_opts o = { .db = db };
	cal_vtable vt;
	TEST_CHECK(t, cal_validate(&vt, &d, NULL, &o, NULL) == 0, "loo: %s", err_msg());
	TEST_CHECK(t, vt.npred == d.n, "predicted %d of %d", vt.npred, d.n);
	for (int i = 0; i < vt.n; i++)
		TEST_CHECK(t, isfinite(vt.rows[i].mape) && vt.rows[i].mape < 0.10, "%s: MAPE %g", vt.rows[i].group,
			   vt.rows[i].mape);
	cal_vtable_free(&vt);
	/* profile from the 1-GPU runs + sweeps, then the 2-GPU runs from it alone */
	cal_data fit;
	cal_data_init(&fit);
	cal_data_load_path(&fit, "tests/data/cal/h200x2", NAN, true, NULL);
	cal_data_canonical(&fit, db);
	cal_data_filter(&fit, "gpus=1");
	cal_pset ps;
	cal_pset_init(&ps);
	cal_summary s;
	TEST_CHECK(t, cal_fit_all(&ps, &fit, &o, &s) == 0 && s.nfailed == 0, "fit");
	cal_data_filter(&d, "kind=throughput,gpus=2");
	TEST_CHECK(t, d.n == 4, "2-GPU runs %d", d.n);
	TEST_CHECK(t, cal_validate(&vt, &d, &ps, &o, NULL) == 0 && vt.npred == 4, "profile validate");
	for (int i = 0; i < vt.n; i++)
		TEST_CHECK(t, vt.rows[i].mape < 0.05 && strcmp(vt.rows[i].how, "profile") == 0, "%s: MAPE %g by %s",
			   vt.rows[i].group, vt.rows[i].mape, vt.rows[i].how);
	cal_vtable_free(&vt);
	cal_pset_free(&ps);
	cal_data_free(&fit);
	cal_data_free(&d);
}

/* One precision default: a throughput row without a precision (a peer's table) is bf16 both where calibrate
 * builds its compute scenario and where validate's model column predicts it (not fp32 in one, bf16 in the
 * other); an H100 runs bf16 about twice as fast as fp32, so a wrong default shows. */
static void test_precision_default(test_ctx *t, const hw_db *db)
{
	static const char csv[] = "machine,gpu,gpus,batch_per_gpu,data,img_s\n"
				  "testbed-h100x1,H100-80GB-HBM3,1,256,synthetic,3000\n";
	cal_data d;
	cal_data_init(&d);
	TEST_CHECK(t, cal_data_load_csv_buf(&d, "peer.csv", csv, sizeof(csv) - 1, true, NULL) == 0 && d.n == 1,
		   "peer.csv: %s", err_msg());
	if (d.n != 1) {
		cal_data_free(&d);
		return;
	}
	cal_data_canonical(&d, db);
	model_params mp;
	model_params_default(&mp);
	model_scenario sc;
	TEST_CHECK(t, cal_point_compute_scenario(db, &mp, &d.pts[0], &sc), "compute scenario of the peer row");
	TEST_CHECK(t, sc.precision == MODEL_BF16, "compute scenario precision %s, want bf16",
		   model_precision_name(sc.precision));
	cal_mcol m = {.db = db, .params = &mp};
	double got = cal_mcol_point(&m, &d, 0, NULL, 0);
	double want[2];
	for (int k = 0; k < 2; k++) {
		plan_spec s;
		model_result r;
		plan_spec_init(&s);
		s.system_id = "testbed-h100x1";
		s.stack_id = cal_point_stack(&d.pts[0]);
		s.precision = k == 0 ? MODEL_BF16 : MODEL_FP32;
		s.data = MODEL_DATA_SYNTHETIC;
		s.batch_per_gpu = 256;
		want[k] = plan_resolve(db, &s, &mp, NULL, 1, 1, &sc) || model_predict(&sc, &mp, &r) ? NAN
											: r.throughput_img_s;
	}
	TEST_NEAR(t, got, want[0], 1e-9 * want[0]);
	TEST_CHECK(t, want[0] > 1.5 * want[1], "bf16 %.0f img/s vs fp32 %.0f: the test cannot tell them apart",
		   want[0], want[1]);
	cal_data_free(&d);
}

/* The 90% interval width (predicted_hi - predicted_lo) / predicted of the throughput row of `file` in a validate
 * --detail table (text), NAN where there is none. */
static double detail_width(const char *text, const char *file)
{
	char *key = xasprintf(",%s,", file);
	double w = NAN;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		char *row = xasprintf("%.*s", (int)n, l);
		char *hi = strrchr(row, ','), *lo = NULL;
		if (hi) {
			*hi = '\0';
			lo = strrchr(row, ',');
		}
		/* group,file,line,measured,predicted,...: predicted is the fifth field */
		const char *f = row;
		for (int k = 0; k < 4 && f; k++)
			f = strchr(f + 1, ',');
		if (strncmp(row, "\"throughput", 11) == 0 && strstr(row, key) && lo && f)
			w = (atof(hi + 1) - atof(lo + 1)) / atof(f + 1);
		free(row);
	}
	free(key);
	return w;
}

/* validate --detail of d on ps into a string (the caller frees it). */
static char *detail_text(const cal_data *d, const cal_pset *ps, const cal_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cal_vtable vt;
	if (!f || cal_validate(&vt, d, ps, o, f) != 0)
		len = 0;
	cal_vtable_free(&vt);
	if (f)
		fclose(f);
	return buf;
}

/* A prior the data did not fit carries its prior standard error into the interval of a prediction that rests on
 * it: fitted on the 1-GPU runs of a 2x H200 campaign, the all-reduce over sockets of 2 emulated nodes is a prior
 * (its busbw with the stated relative spread); the interval of that 2-GPU run widens against the same prior held
 * without an error, while a 1-GPU run (no all-reduce) keeps its interval to the last digit. */
static void test_prior_se(test_ctx *t, const hw_db *db)
{
	cal_data all, fit;
	cal_data_init(&all);
	cal_data_init(&fit);
	const char *dir = "bench/data/h200x2-2026-11-26/campaign2/csv";
	TEST_CHECK(t, cal_data_load_path(&all, dir, NAN, true, NULL) == 0 && cal_data_load_path(&fit, dir, NAN, true, NULL) == 0,
		   "load: %s", err_msg());
	cal_data_canonical(&all, db);
	cal_data_canonical(&fit, db);
	cal_data_filter(&fit, "gpus=1");
	cal_opts o = { .db = db };
	cal_pset ps;
	cal_pset_init(&ps);
	TEST_CHECK(t, cal_fit_all(&ps, &fit, &o, NULL) == 0, "fit on 1 GPU: %s", err_msg());
	cal_data_filter(&all, "kind=throughput");
	for (int i = 0; i < all.n; i++) /* the priors the predictions read, made in ps */
		cal_predict(&ps, &all, i, &o);
	int bw = cal_pset_find(&ps, "busbw_Bps", "testbed-h200x2|socket");
	TEST_CHECK(t, bw >= 0 && ps.p[bw].status == CAL_PRIOR, "socket busbw a prior after a 1-GPU fit");
	if (bw >= 0)
		TEST_NEAR(t, ps.p[bw].se, 0.73 * ps.p[bw].value, 1e-12);
	char *with = detail_text(&all, &ps, &o);
	for (int i = 0; i < ps.n; i++) /* the same priors held without an error (as before they had one) */
		if (ps.p[i].status == CAL_PRIOR && ps.p[i].se > 0)
			ps.p[i].se = 0;
	char *without = detail_text(&all, &ps, &o);
	double w2 = detail_width(with, "g1x2_b256_synthetic_emulated.csv"),
	       w20 = detail_width(without, "g1x2_b256_synthetic_emulated.csv");
	double w1 = detail_width(with, "g1x1_b256_synthetic_none.csv"), w10 = detail_width(without, "g1x1_b256_synthetic_none.csv");
	TEST_CHECK(t, isfinite(w20) && w2 > 2 * w20, "2 emulated nodes: width %.3g with the prior's error, %.3g without", w2,
		   w20);
	TEST_CHECK(t, isfinite(w10) && w1 > 0 && w1 == w10, "1 GPU: width %.17g with, %.17g without", w1, w10);
	free(with);
	free(without);
	cal_pset_free(&ps);
	cal_data_free(&fit);
	cal_data_free(&all);
}

/* cal_loo_interval: a point whose residual lies inside its repeats' half-range scores 0 and so does not widen
 * the others' interval; it falls inside its own (widened) one; with no spread counted the interval is wider. */
static void test_loo_interval(test_ctx *t)
{
	double rho[6] = {0.02, -0.02, 0.01, -0.01, 0.25, -0.22}, hw[6] = {0, 0, 0, 0, 0.26, 0.23};
	TEST_CHECK(t, cal_resid_beyond(0.25, 0.26) == 0 && fabs(cal_resid_beyond(-0.3, 0.1) + 0.2) < 1e-15, "%s", "beyond");
	cal_loo_iv iv, plain;
	cal_loo_interval(rho, hw, 6, &iv);
	cal_loo_interval(rho, NULL, 6, &plain);
	TEST_CHECK(t, iv.n == 6 && fabs(iv.hi - 0.02) < 1e-12 && fabs(iv.lo + 0.02) < 1e-12, "spread: %g %g", iv.lo, iv.hi);
	TEST_CHECK(t, iv.in == 6, "spread: %d of 6 inside", iv.in);
	TEST_CHECK(t, plain.hi > 0.2 && plain.in < 6, "plain: %g, %d inside", plain.hi, plain.in);
}

int main(void)
{
	test_ctx t = {0};
	test_loo_interval(&t);
	hw_db db;
	if (hw_db_load_default(&db, stderr) < 0) {
		fprintf(stderr, "hwdb: %s\n", err_msg());
		return 1;
	}
	test_lsq(&t);
	test_readers(&t);
	test_rank_files(&t);
	test_one_allreduce(&t, &db);
	test_one_compute(&t, &db);
	test_profile_compute(&t, &db);
	test_model_column(&t, &db);
	test_profile_links(&t, &db);
	test_phase_apply(&t);
	test_c4130(&t, &db);
	test_sweep_recovery(&t, &db);
	test_undetermined(&t, &db);
	test_validate(&t, &db);
	test_prior_se(&t, &db);
	test_bucket_pipeline(&t, &db);
	test_contention(&t, &db);
	test_precision_default(&t, &db);
	hw_db_free(&db);
	return test_report(&t);
}
