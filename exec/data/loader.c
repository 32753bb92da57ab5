/* ImageNet-layout folder loader: scan, shard, per-epoch shuffle, pthread decode pool into caller buffers.
 *
 * Work is handed out one image at a time (a ticket = batch slot + position) under one mutex, so the
 * threads stay balanced whatever the image sizes; a decode takes about a millisecond, the lock a few
 * tens of nanoseconds. Batches complete in any order but wait() returns them in submission order.
 * A file that fails is flagged bad (never retried), named once, and its slot refilled from another
 * file chosen from the seed, so a batch is always full and every rank runs the same number of steps.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/data/ex_data.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"

#define MAX_REPLACE 64    /* replacement tries for one slot before the batch fails */
#define MAX_NAMED 50      /* bad/skipped files kept by name for the report */

typedef struct file_ent {
	char *path;  /* relative to the split folder: "class/name.JPEG" */
	int label;
} file_ent;

typedef struct note_ent {
	char *path;
	char *why;
} note_ent;

typedef struct slot {
	void *dst;
	int *labels;
	long seq;       /* batch number in the stream */
	int count;      /* images in this batch */
	int assigned;   /* images handed to workers */
	int remaining;  /* images not finished */
	bool failed;
	char err[512];
} slot;

struct ex_data_loader {
	ex_data_config cfg;
	char *root;             /* DIR/split */
	int nclasses;
	char **classes;
	long n;                 /* files */
	file_ent *files;
	long shard;             /* this rank's files per epoch */
	long bpe;               /* batches per epoch */
	ex_jpeg_aug aug;
	ex_jpeg_aug aug_u8;     /* raw mode's CPU share: the same crop and resize, uint8 RGB out */
	size_t img_B;
	int cpu_n;              /* raw mode: images 0..cpu_n-1 of each batch decoded here (ex_data_loader_set_cpu_decode) */

	unsigned char *bad;     /* [n] 1 when the file failed */
	long nbad;
	note_ent notes[MAX_NAMED]; /* bad and skipped files, by name */
	int nnotes;
	long skipped_named;     /* notes that did not fit */

	long *order;            /* [shard] file indices of this rank in order_epoch */
	long order_epoch;
	long *fixed;            /* fixed_shard: this rank's files */
	long nfixed;

	pthread_mutex_t mu;
	pthread_cond_t work;    /* a slot has unassigned images, or stop */
	pthread_cond_t done;    /* a slot finished */
	slot *slots;            /* ring of depth */
	int head, nslots;       /* oldest outstanding, count */
	long next_seq;
	bool stop;
	pthread_t *tids;
	int nthreads;

	ex_data_stats st;
};

void ex_data_config_init(ex_data_config *c)
{
	memset(c, 0, sizeof *c);
	c->split = "train";
	c->train = true;
	c->batch = 256;
	c->dtype = EX_DATA_F32;
	c->out_hw = 224;
	c->resize_hw = 256;
	c->threads = 4;
	c->depth = 3;
	c->rank = 0;
	c->world = 1;
	c->seed = 1;
}

static bool is_jpeg_name(const char *s)
{
	const char *dot = strrchr(s, '.');
	return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Remembers a bad or skipped file for the report; caller holds the lock (or is single-threaded). */
static void note(ex_data_loader *l, const char *path, const char *why)
{
	if (!l->cfg.quiet)
		fprintf(stderr, "data: skipping %s/%s: %s\n", l->root, path, why);
	if (l->nnotes < MAX_NAMED) {
		l->notes[l->nnotes].path = xstrdup(path);
		l->notes[l->nnotes].why = xstrdup(why);
		l->nnotes++;
	} else {
		l->skipped_named++;
	}
}

/* Lists the entries of a folder, sorted; dot files are left out. */
static int list_dir(const char *path, char ***names, int *count)
{
	DIR *d = opendir(path);
	if (!d)
		return err_set("%s: cannot open folder: %s", path, strerror(errno));
	int cap = 64, n = 0;
	char **v = xmalloc(sizeof *v * cap);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap *= 2;
			v = xrealloc(v, sizeof *v * cap);
		}
		v[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(v, n, sizeof *v, cmp_str);
	*names = v;
	*count = n;
	return 0;
}

static int scan(ex_data_loader *l)
{
	char **top = NULL;
	int ntop = 0, rc = list_dir(l->root, &top, &ntop);
	if (rc < 0)
		return rc;
	long cap = 1024;
	l->files = xmalloc(sizeof *l->files * cap);
	l->classes = xmalloc(sizeof *l->classes * (ntop ? ntop : 1));
	for (int i = 0; i < ntop; i++) {
		char *cdir = xasprintf("%s/%s", l->root, top[i]);
		struct stat sb;
		if (stat(cdir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			l->st.nonimage++;
			note(l, top[i], "not a class folder (a file at the class level)");
			free(cdir);
			continue;
		}
		char **names = NULL;
		int nn = 0;
		if (list_dir(cdir, &names, &nn) < 0) {
			l->st.empty_classes++;
			note(l, top[i], err_msg());
			free(cdir);
			continue;
		}
		int label = l->nclasses;
		l->classes[l->nclasses++] = xstrdup(top[i]);
		long before = l->n;
		for (int j = 0; j < nn; j++) {
			char *rel = xasprintf("%s/%s", top[i], names[j]);
			if (!is_jpeg_name(names[j])) {
				l->st.nonimage++;
				note(l, rel, "not a .jpg/.jpeg file");
				free(rel);
			} else {
				if (l->n == cap) {
					cap *= 2;
					l->files = xrealloc(l->files, sizeof *l->files * cap);
				}
				l->files[l->n].path = rel;
				l->files[l->n].label = label;
				l->n++;
			}
			free(names[j]);
		}
		free(names);
		if (l->n == before) {
			l->st.empty_classes++;
			note(l, top[i], "class folder has no .jpg/.jpeg images");
		}
		free(cdir);
	}
	for (int i = 0; i < ntop; i++)
		free(top[i]);
	free(top);
	if (l->n == 0)
		return err_set("%s: no .jpg/.jpeg images (%d class folders, %ld other files skipped); expected "
			       "DIR/%s/<class>/<image>.JPEG", l->root, l->nclasses, l->st.nonimage, l->cfg.split);
	if (l->cfg.limit > 0 && l->n > l->cfg.limit) { /* an evenly spread subset keeps every class */
		long m = l->cfg.limit;
		file_ent *keep = xmalloc(sizeof *keep * m);
		for (long k = 0, next = 0; k < l->n; k++) {
			if (next < m && k == (long)((double)next * l->n / m))
				keep[next++] = l->files[k];
			else
				free(l->files[k].path);
		}
		free(l->files);
		l->files = keep;
		l->n = m;
	}
	l->st.files = l->n;
	return 0;
}

/* Fisher-Yates shuffle from a seed. */
static void shuffle(long *v, long n, uint64_t seed)
{
	uint64_t s = seed;
	for (long i = n - 1; i > 0; i--) {
		long j = (long)(ex_data_rand(&s) % (uint64_t)(i + 1));
		long t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t s = a ^ (b * 0xd1342543de82ef95ULL);
	return ex_data_rand(&s);
}

/* Builds this rank's file order for epoch e (caller holds the lock). */
static void make_order(ex_data_loader *l, long e)
{
	const ex_data_config *c = &l->cfg;
	if (!c->train) { /* evaluation: files rank, rank + world, ... in folder order */
		for (long i = 0; i < l->shard; i++)
			l->order[i] = c->rank + i * c->world;
	} else if (c->fixed_shard) {
		memcpy(l->order, l->fixed, sizeof(long) * l->shard);
		shuffle(l->order, l->shard, mix(mix(c->seed, (uint64_t)e + 1), (uint64_t)c->rank + 77));
	} else { /* torch DistributedSampler: one global permutation per epoch, rank takes a stride */
		long *perm = xmalloc(sizeof(long) * l->n);
		for (long i = 0; i < l->n; i++)
			perm[i] = i;
		shuffle(perm, l->n, mix(c->seed, (uint64_t)e + 1));
		for (long i = 0; i < l->shard; i++)
			l->order[i] = perm[c->rank + i * c->world];
		free(perm);
	}
	l->order_epoch = e;
}

/* Reads a whole file into *buf (grown as needed). */
static int read_whole(const char *path, unsigned char **buf, size_t *cap, size_t *len)
{
	/* O_NONBLOCK: a FIFO (or device) named .JPEG would block open() for ever; so it opens, fails the
	 * regular-file check below and is skipped. Reads of regular files ignore the flag. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return err_set("cannot open: %s", strerror(errno));
	struct stat sb;
	int rc = 0;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		rc = err_set("not a regular file");
		goto out;
	}
	if (sb.st_size > 1L << 30) {
		rc = err_set("file of %lld bytes is over 1 GiB", (long long)sb.st_size);
		goto out;
	}
	size_t want = (size_t)sb.st_size + 1, n = 0;
	if (want > *cap) {
		free(*buf);
		*cap = want + want / 2;
		*buf = xmalloc(*cap);
	}
	for (;;) {
		ssize_t r = read(fd, *buf + n, *cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = err_set("read error: %s", strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == *cap) { /* the file grew */
			*cap *= 2;
			*buf = xrealloc(*buf, *cap);
		}
	}
	*len = n;
out:
	close(fd);
	return rc;
}

/* raw mode: the header of a file just read, checked, and the image's crop drawn (the decode is the GPU's) */
static int raw_parse(const ex_data_loader *l, ex_data_raw_img *ri, long fi, uint64_t *rng)
{
	ex_jpeg_hdr h;
	if (ex_jpeg_header(ri->data, ri->len_B, &h) < 0)
		return ERR_INPUT;
	if (!h.has_eoi)
		return err_set("truncated JPEG: no end-of-image marker (FF D9) in its last KiB");
	if (h.precision != 8)
		return err_set("JPEG of %d bits per sample (8 expected)", h.precision);
	double cx, cy, cw, ch;
	ex_jpeg_crop(h.width, h.height, &l->aug, rng, &cx, &cy, &cw, &ch, &ri->flip);
	ri->width = h.width;
	ri->height = h.height;
	ri->hw_ok = h.hw_ok;
	ri->crop[0] = (float)cx, ri->crop[1] = (float)cy, ri->crop[2] = (float)cw, ri->crop[3] = (float)ch;
	ri->file = fi;
	return 0;
}

/* raw mode's CPU share: decodes the image here (its crop and flip as drawn) into ri->pix, uint8 RGB */
static int raw_decode_here(const ex_data_loader *l, ex_jpeg_ctx *jc, ex_data_raw_img *ri)
{
	size_t need = ex_jpeg_image_bytes(&l->aug_u8);
	if (need > ri->pix_cap_B) {
		free(ri->pix);
		ri->pix = xmalloc(need);
		ri->pix_cap_B = need;
	}
	if (ex_jpeg_decode_at(jc, ri->data, ri->len_B, &l->aug_u8, ri->crop, ri->flip, ri->pix) < 0)
		return ERR_INPUT;
	ri->cpu = true;
	return 0;
}

void ex_data_loader_set_cpu_decode(ex_data_loader *l, int n)
{
	pthread_mutex_lock(&l->mu);
	l->cpu_n = n < 0 ? 0 : n > l->cfg.batch ? l->cfg.batch : n;
	pthread_mutex_unlock(&l->mu);
}

ex_data_raw *ex_data_raw_new(int batch)
{
	ex_data_raw *r = xcalloc(1, sizeof(*r));
	r->batch = batch;
	r->img = xcalloc((size_t)batch, sizeof(*r->img));
	return r;
}

void ex_data_raw_free(ex_data_raw *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->batch; i++) {
		free(r->img[i].data);
		free(r->img[i].pix);
	}
	free(r->img);
	free(r);
}

int ex_data_loader_mark_bad(ex_data_loader *l, long file, const char *why)
{
	if (file < 0 || file >= l->n)
		return err_set("data: file index %ld out of 0..%ld", file, l->n - 1);
	pthread_mutex_lock(&l->mu);
	if (!l->bad[file]) {
		l->bad[file] = 1;
		l->nbad++;
		l->st.bad++;
		note(l, l->files[file].path, why);
	}
	l->st.images--; /* delivered, but it did not decode */
	pthread_mutex_unlock(&l->mu);
	return 0;
}

const char *ex_data_loader_file(const ex_data_loader *l, long file)
{
	return file >= 0 && file < l->n ? l->files[file].path : NULL;
}

typedef struct worker_arg {
	ex_data_loader *l;
	int id;
} worker_arg;

static void *worker(void *varg)
{
	worker_arg *wa = varg;
	ex_data_loader *l = wa->l;
	ex_jpeg_ctx *jc = ex_jpeg_ctx_new();
	unsigned char *fbuf = NULL;
	size_t fcap = 0;
	pthread_mutex_lock(&l->mu);
	for (;;) {
		/* the oldest slot with unassigned images */
		slot *s = NULL;
		for (int k = 0; k < l->nslots && !l->stop; k++) {
			slot *c = &l->slots[(l->head + k) % l->cfg.depth];
			if (c->assigned < c->count) {
				s = c;
				break;
			}
		}
		if (l->stop)
			break;
		if (!s) {
			pthread_cond_wait(&l->work, &l->mu);
			continue;
		}
		int j = s->assigned++;
		bool on_cpu = l->cfg.raw && j < l->cpu_n;
		long e = s->seq / l->bpe, b = s->seq % l->bpe;
		if (e != l->order_epoch)
			make_order(l, e);
		long fi = l->order[b * l->cfg.batch + j];
		unsigned char *dst = (unsigned char *)s->dst + (size_t)j * l->img_B;
		int *labels = s->labels;
		uint64_t rng = mix(mix(l->cfg.seed ^ 0x5ca1e, (uint64_t)s->seq), (uint64_t)j + 1);
		bool ok = false;
		char err[512] = "";
		for (int attempt = 0; attempt <= MAX_REPLACE && !ok; attempt++) {
			if (attempt > 0) { /* replacement: a file not known bad, from the seed */
				uint64_t rs = mix(rng, (uint64_t)attempt);
				fi = (long)(ex_data_rand(&rs) % (uint64_t)l->n);
			}
			if (l->bad[fi])
				continue;
			if (!jc) { /* the decoder itself did not start: no file is to blame */
				snprintf(err, sizeof err, "TurboJPEG/libjpeg decoder could not start");
				break;
			}
			char *path = xasprintf("%s/%s", l->root, l->files[fi].path);
			pthread_mutex_unlock(&l->mu);
			double t0 = time_now_s(), t1, t2;
			size_t len = 0;
			int rc;
			if (l->cfg.raw) {
				ex_data_raw_img *ri = &((ex_data_raw *)s->dst)->img[j];
				rc = read_whole(path, &ri->data, &ri->cap_B, &ri->len_B);
				t1 = time_now_s();
				len = rc == 0 ? ri->len_B : 0;
				if (rc == 0)
					rc = raw_parse(l, ri, fi, &rng);
				ri->cpu = false;
				if (rc == 0 && on_cpu)
					rc = raw_decode_here(l, jc, ri);
				t2 = time_now_s();
			} else {
				rc = read_whole(path, &fbuf, &fcap, &len);
				t1 = time_now_s();
				if (rc == 0)
					rc = ex_jpeg_decode_aug(jc, fbuf, len, &l->aug, &rng, dst, NULL);
				t2 = time_now_s();
			}
			if (rc < 0)
				snprintf(err, sizeof err, "%s", err_msg());
			if (rc < 0 && (!l->cfg.raw || on_cpu)) {
				/* a fresh decoder after a failure: TurboJPEG recovers by longjmp, so start clean */
				ex_jpeg_ctx_free(jc);
				jc = ex_jpeg_ctx_new();
			}
			free(path);
			pthread_mutex_lock(&l->mu);
			l->st.read_s += t1 - t0;
			l->st.read_B += (double)len;
			l->st.decode_s += t2 - t1;
			if (rc == 0) {
				ok = true;
				labels[j] = l->files[fi].label;
				l->st.images++;
			} else if (!l->bad[fi]) {
				l->bad[fi] = 1;
				l->nbad++;
				l->st.bad++;
				note(l, l->files[fi].path, err);
			}
		}
		if (!ok && !s->failed) {
			s->failed = true;
			snprintf(s->err, sizeof s->err, "%s: no readable image for batch %ld slot %d after %d tries "
				 "(%ld bad files; last: %s)", l->root, s->seq, j, MAX_REPLACE, l->nbad, err);
		}
		if (--s->remaining == 0)
			pthread_cond_broadcast(&l->done);
	}
	pthread_mutex_unlock(&l->mu);
	ex_jpeg_ctx_free(jc);
	free(fbuf);
	free(wa);
	return NULL;
}

int ex_data_loader_new(ex_data_loader **out, const ex_data_config *c)
{
	*out = NULL;
	if (!c->dir || !c->split)
		return err_set("data: no folder given");
	if (c->batch < 1 || c->threads < 1 || c->threads > 1024 || c->depth < 1 || c->world < 1 || c->rank < 0 ||
	    c->rank >= c->world || c->out_hw < 1 || c->out_hw > 4096 || c->resize_hw < 1)
		return err_set("data: bad loader settings (batch %d, threads %d, depth %d, rank %d of %d, out %d, "
			       "resize %d)", c->batch, c->threads, c->depth, c->rank, c->world, c->out_hw, c->resize_hw);
	ex_data_loader *l = xcalloc(1, sizeof *l);
	l->cfg = *c;
	l->root = xasprintf("%s/%s", c->dir, c->split);
	l->order_epoch = -1;
	int rc = scan(l);
	if (rc < 0)
		goto fail;
	if (l->n < c->world) {
		rc = err_set("%s: %ld images for %d ranks", l->root, l->n, c->world);
		goto fail;
	}
	if (c->train) {
		l->shard = l->n / c->world; /* equal shards: every rank runs the same steps */
		l->bpe = l->shard / c->batch;
		if (l->bpe < 1) {
			rc = err_set("%s: %ld images per rank, fewer than one batch of %d", l->root, l->shard, c->batch);
			goto fail;
		}
	} else {
		l->shard = (l->n - c->rank + c->world - 1) / c->world;
		l->bpe = (l->shard + c->batch - 1) / c->batch;
	}
	if (c->train && c->fixed_shard) {
		long *perm = xmalloc(sizeof(long) * l->n);
		for (long i = 0; i < l->n; i++)
			perm[i] = i;
		shuffle(perm, l->n, mix(c->seed, 0));
		l->fixed = xmalloc(sizeof(long) * l->shard);
		for (long i = 0; i < l->shard; i++)
			l->fixed[i] = perm[c->rank + i * c->world];
		l->nfixed = l->shard;
		free(perm);
	}
	l->order = xmalloc(sizeof(long) * l->shard);
	l->bad = xcalloc((size_t)l->n, 1);
	ex_jpeg_aug_init(&l->aug, c->train);
	l->aug.out_hw = c->out_hw;
	l->aug.resize_hw = c->resize_hw;
	l->aug.dtype = c->dtype;
	l->aug.full_decode = c->full_decode;
	l->aug.fast_dct = c->fast_dct;
	if (c->scale_min > 0 && c->scale_min <= 1)
		l->aug.scale_min = c->scale_min;
	l->aug_u8 = l->aug;
	l->aug_u8.dtype = EX_DATA_U8;
	l->img_B = ex_jpeg_image_bytes(&l->aug);
	l->slots = xcalloc((size_t)c->depth, sizeof *l->slots);
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->work, NULL);
	pthread_cond_init(&l->done, NULL);
	l->tids = xcalloc((size_t)c->threads, sizeof *l->tids);
	for (int i = 0; i < c->threads; i++) {
		worker_arg *wa = xmalloc(sizeof *wa);
		wa->l = l;
		wa->id = i;
		int e = pthread_create(&l->tids[i], NULL, worker, wa);
		if (e != 0) {
			free(wa);
			ex_data_loader_free(l);
			err_set("data: cannot start decode thread %d: %s", i, strerror(e));
			return ERR_ENV;
		}
		pthread_setname_np(l->tids[i], "sp-reader"); /* for thread dumps (the stall report, ex_input.c) */
		l->nthreads++;
	}
	*out = l;
	return 0;
fail:
	ex_data_loader_free(l);
	return rc;
}

void ex_data_loader_free(ex_data_loader *l)
{
	if (!l)
		return;
	if (l->nthreads) {
		pthread_mutex_lock(&l->mu);
		l->stop = true;
		pthread_cond_broadcast(&l->work);
		pthread_mutex_unlock(&l->mu);
		for (int i = 0; i < l->nthreads; i++)
			pthread_join(l->tids[i], NULL);
	}
	if (l->slots) {
		pthread_mutex_destroy(&l->mu);
		pthread_cond_destroy(&l->work);
		pthread_cond_destroy(&l->done);
	}
	for (long i = 0; i < l->n; i++)
		free(l->files[i].path);
	free(l->files);
	for (int i = 0; i < l->nclasses; i++)
		free(l->classes[i]);
	free(l->classes);
	for (int i = 0; i < l->nnotes; i++) {
		free(l->notes[i].path);
		free(l->notes[i].why);
	}
	free(l->root);
	free(l->bad);
	free(l->order);
	free(l->fixed);
	free(l->slots);
	free(l->tids);
	free(l);
}

int ex_data_loader_classes(const ex_data_loader *l) { return l->nclasses; }
const char *ex_data_loader_class_name(const ex_data_loader *l, int i)
{
	return i >= 0 && i < l->nclasses ? l->classes[i] : NULL;
}
long ex_data_loader_files(const ex_data_loader *l) { return l->n; }
long ex_data_loader_shard_files(const ex_data_loader *l) { return l->shard; }
long ex_data_loader_batches_per_epoch(const ex_data_loader *l) { return l->bpe; }
size_t ex_data_loader_image_bytes(const ex_data_loader *l) { return l->img_B; }
size_t ex_data_loader_batch_bytes(const ex_data_loader *l) { return l->img_B * (size_t)l->cfg.batch; }

int ex_data_loader_submit(ex_data_loader *l, void *dst, int *labels)
{
	if (!dst || !labels)
		return err_set("data: submit without a buffer");
	pthread_mutex_lock(&l->mu);
	if (l->nslots == l->cfg.depth) {
		pthread_mutex_unlock(&l->mu);
		return err_set("data: %d buffers already submitted (depth %d)", l->nslots, l->cfg.depth);
	}
	slot *s = &l->slots[(l->head + l->nslots) % l->cfg.depth];
	memset(s, 0, sizeof *s);
	s->dst = dst;
	s->labels = labels;
	s->seq = l->next_seq++;
	long b = s->seq % l->bpe;
	long left = l->shard - b * l->cfg.batch;
	s->count = left < l->cfg.batch ? (int)left : l->cfg.batch;
	s->remaining = s->count;
	l->nslots++;
	pthread_cond_broadcast(&l->work);
	pthread_mutex_unlock(&l->mu);
	return 0;
}

int ex_data_loader_wait(ex_data_loader *l, void **dst, int **labels)
{
	pthread_mutex_lock(&l->mu);
	if (l->nslots == 0) {
		pthread_mutex_unlock(&l->mu);
		return err_set("data: wait with no buffer submitted");
	}
	slot *s = &l->slots[l->head];
	double t0 = time_now_s();
	while (s->remaining > 0)
		pthread_cond_wait(&l->done, &l->mu);
	l->st.wait_s += time_now_s() - t0;
	l->head = (l->head + 1) % l->cfg.depth;
	l->nslots--;
	int n = s->count, rc = n;
	if (s->failed)
		rc = err_set("%s", s->err);
	else
		l->st.batches++;
	*dst = s->dst;
	*labels = s->labels;
	pthread_mutex_unlock(&l->mu);
	return rc;
}

int ex_data_loader_next(ex_data_loader *l, void *dst, int *labels)
{
	int rc = ex_data_loader_submit(l, dst, labels);
	if (rc < 0)
		return rc;
	void *d;
	int *lab;
	return ex_data_loader_wait(l, &d, &lab);
}

void ex_data_loader_stats(ex_data_loader *l, ex_data_stats *s)
{
	pthread_mutex_lock(&l->mu);
	*s = l->st;
	pthread_mutex_unlock(&l->mu);
}

const char *ex_data_loader_bad_file(ex_data_loader *l, long i, const char **reason)
{
	const char *p = NULL;
	pthread_mutex_lock(&l->mu);
	if (i >= 0 && i < l->nnotes) {
		p = l->notes[i].path;
		if (reason)
			*reason = l->notes[i].why;
	}
	pthread_mutex_unlock(&l->mu);
	return p;
}

void ex_data_loader_report(ex_data_loader *l, FILE *f)
{
	pthread_mutex_lock(&l->mu);
	fprintf(f, "data %s: %ld images in %d classes, %ld per rank, %ld batches/epoch; %ld images decoded, "
		"%ld bad files, %ld non-image files, %ld empty class folders\n", l->root, l->n, l->nclasses,
		l->shard, l->bpe, l->st.images, l->st.bad, l->st.nonimage, l->st.empty_classes);
	for (int i = 0; i < l->nnotes; i++)
		fprintf(f, "  skipped %s: %s\n", l->notes[i].path, l->notes[i].why);
	if (l->skipped_named)
		fprintf(f, "  ... and %ld more\n", l->skipped_named);
	pthread_mutex_unlock(&l->mu);
}

void ex_data_loader_describe(ex_data_loader *l, char *buf, size_t cap)
{
	if (cap == 0)
		return;
	/* a stall report must not stall on the lock it reports on: a few tries, then say who holds it */
	bool locked = false;
	for (int i = 0; i < 100 && !locked; i++) {
		locked = pthread_mutex_trylock(&l->mu) == 0;
		if (!locked)
			usleep(10000);
	}
	if (!locked) {
		snprintf(buf, cap, "%s: its lock stayed held for 1 s (a reader thread holds it)", l->root);
		return;
	}
	if (l->nslots == 0) {
		snprintf(buf, cap, "%s: no batch in flight, %ld delivered", l->root, l->st.batches);
	} else {
		const slot *s = &l->slots[l->head];
		snprintf(buf, cap, "%s: %d batches in flight, %ld delivered; the oldest (batch %ld): %d of %d images "
			 "handed to the %d reader threads, %d not finished", l->root, l->nslots, l->st.batches, s->seq,
			 s->assigned, s->count, l->nthreads, s->remaining);
	}
	pthread_mutex_unlock(&l->mu);
}
