/* exec: training checkpoints (see ex_ckpt.h for the format and the guarantees).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/ex_ckpt.h"
#include "exec/ex_dist.h"

#define CKPT_MAGIC "SPCKPT01"
#define CKPT_VERSION 1u

typedef struct ckpt_entry {
	char name[24];
	uint64_t size_B;
	uint64_t sum;
} ckpt_entry;

void ex_ckpt_policy_init(ex_ckpt_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->last_s = time_now_s();
}

int ex_ckpt_opt_set(ex_ckpt_policy *p, const char *name, const char *value)
{
	char *end;
	if (strcmp(name, "resume") == 0) {
		p->resume = true;
		return 0;
	}
	if (strcmp(name, "ckpt-dir") == 0) {
		if (!value || !*value)
			return err_set("--ckpt-dir: empty directory name");
		p->dir = value;
		return 0;
	}
	if (strcmp(name, "ckpt-every-epochs") == 0) {
		long v = value ? strtol(value, &end, 10) : -1;
		if (!value || *end || v < 1 || v > 100000)
			return err_set("--ckpt-every-epochs: '%s' is not a count in [1, 100000]", value ? value : "");
		p->every_epochs = (int)v;
		return 0;
	}
	if (strcmp(name, "ckpt-every-min") == 0) {
		double v = value ? strtod(value, &end) : -1;
		if (!value || *end || !(v > 0 && v <= 1e6))
			return err_set("--ckpt-every-min: '%s' is not a positive number of minutes", value ? value : "");
		p->every_s = v * 60.0;
		return 0;
	}
	return 1;
}

char *ex_ckpt_path(const ex_ckpt_policy *p)
{
	return xasprintf("%s/ckpt.bin", p->dir ? p->dir : ".");
}

int ex_ckpt_policy_check(const ex_ckpt_policy *p)
{
	struct stat st;
	if (!p->dir) {
		if (p->resume)
			return err_set("--resume needs --ckpt-dir (the directory holding ckpt.bin)");
		if (p->every_epochs || p->every_s > 0)
			return err_set("--ckpt-every-* needs --ckpt-dir");
		return 0;
	}
	if (stat(p->dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return err_set("--ckpt-dir %s: not a directory", p->dir);
	if (access(p->dir, W_OK) != 0)
		return err_set("--ckpt-dir %s: not writable", p->dir);
	if (p->resume) {
		char *path = ex_ckpt_path(p);
		int ok = access(path, R_OK) == 0;
		if (!ok)
			err_set("--resume: %s does not exist or is not readable", path);
		free(path);
		if (!ok)
			return ERR_INPUT;
	}
	return 0;
}

bool ex_ckpt_due(const ex_ckpt_policy *p, bool epoch_end, int64_t epochs_done, double now_s)
{
	if (!p->dir)
		return false;
	int every = p->every_epochs ? p->every_epochs : (p->every_s > 0 ? 0 : 1);
	if (epoch_end && every && epochs_done % every == 0)
		return true;
	return p->every_s > 0 && now_s - p->last_s >= p->every_s;
}

/* FNV-1a, 64 bit (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/). */
uint64_t ex_ckpt_fnv1a(const void *data, size_t size_B)
{
	const unsigned char *p = data;
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < size_B; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int ex_ckpt_write_sections(const char *path, const ex_ckpt_section *sec, int nsec)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	char *dcopy = NULL;
	int rc = ERR_ENV, fd = -1;
	uint32_t hdr[2] = { CKPT_VERSION, (uint32_t)nsec };
	if (nsec < 0 || nsec > 16) {
		rc = err_set("checkpoint: %d sections (at most 16)", nsec);
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		err_set("%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (write_all(fd, CKPT_MAGIC, 8) || write_all(fd, hdr, sizeof(hdr)))
		goto io;
	for (int i = 0; i < nsec; i++) {
		ckpt_entry e;
		memset(&e, 0, sizeof(e));
		snprintf(e.name, sizeof(e.name), "%s", sec[i].name);
		e.size_B = sec[i].size_B;
		e.sum = ex_ckpt_fnv1a(sec[i].data, sec[i].size_B);
		if (write_all(fd, &e, sizeof(e)))
			goto io;
	}
	for (int i = 0; i < nsec; i++)
		if (write_all(fd, sec[i].data, sec[i].size_B))
			goto io;
	if (fsync(fd) != 0)
		goto io;
	if (close(fd) != 0) {
		fd = -1;
		goto io;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto io;
	/* make the rename itself durable */
	dcopy = xstrdup(path);
	int dfd = open(dirname(dcopy), O_RDONLY | O_DIRECTORY);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	rc = 0;
	goto out;
io:
	err_set("%s: %s", tmp, strerror(errno ? errno : EIO));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	free(dcopy);
	free(tmp);
	return rc;
}

int ex_ckpt_read_sections(ex_ckpt_file *f, const char *path)
{
	FILE *fp = NULL;
	long len;
	memset(f, 0, sizeof(*f));
	fp = fopen(path, "rb");
	if (!fp)
		return err_set("%s: %s", path, strerror(errno)), ERR_ENV;
	if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
		fclose(fp);
		return err_set("%s: cannot determine its size", path), ERR_ENV;
	}
	f->buf = xmalloc((size_t)len + 1);
	f->size_B = (size_t)len;
	if (fread(f->buf, 1, (size_t)len, fp) != (size_t)len) {
		fclose(fp);
		ex_ckpt_file_free(f);
		return err_set("%s: short read", path), ERR_ENV;
	}
	fclose(fp);
	const char *p = f->buf;
	uint32_t hdr[2];
	size_t need = 8 + sizeof(hdr);
	if ((size_t)len < need || memcmp(p, CKPT_MAGIC, 8) != 0)
		goto bad_magic;
	memcpy(hdr, p + 8, sizeof(hdr));
	if (hdr[0] != CKPT_VERSION) {
		ex_ckpt_file_free(f);
		return err_set("%s: checkpoint version %u, this build reads %u", path, hdr[0], CKPT_VERSION);
	}
	if (hdr[1] > 16)
		goto bad_magic;
	f->nsec = (int)hdr[1];
	size_t off = need + (size_t)f->nsec * sizeof(ckpt_entry);
	if (off > (size_t)len)
		goto truncated;
	for (int i = 0; i < f->nsec; i++) {
		ckpt_entry e;
		memcpy(&e, p + need + (size_t)i * sizeof(e), sizeof(e));
		e.name[sizeof(e.name) - 1] = 0;
		if (e.size_B > (uint64_t)len - off)
			goto truncated;
		memcpy(f->sec[i].name, e.name, sizeof(e.name));
		f->sec[i].size_B = e.size_B;
		f->sec[i].data = p + off;
		if (ex_ckpt_fnv1a(p + off, e.size_B) != e.sum) {
			ex_ckpt_file_free(f);
			return err_set("%s: section '%s' fails its checksum (corrupted file)", path, e.name);
		}
		off += e.size_B;
	}
	if (off != (size_t)len)
		goto truncated;
	return 0;
bad_magic:
	ex_ckpt_file_free(f);
	return err_set("%s: not a scaleplan checkpoint", path);
truncated:
	ex_ckpt_file_free(f);
	return err_set("%s: truncated or padded checkpoint (%ld bytes)", path, len);
}

const void *ex_ckpt_find(const ex_ckpt_file *f, const char *name, size_t size_B)
{
	for (int i = 0; i < f->nsec; i++) {
		if (strcmp(f->sec[i].name, name) != 0)
			continue;
		if (f->sec[i].size_B != size_B) {
			err_set("checkpoint section '%s' has %llu bytes, this network needs %zu", name,
				(unsigned long long)f->sec[i].size_B, size_B);
			return NULL;
		}
		return f->sec[i].data;
	}
	err_set("checkpoint has no section '%s'", name);
	return NULL;
}

void ex_ckpt_file_free(ex_ckpt_file *f)
{
	if (!f)
		return;
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

/* ---- whole-network layer ---- */

int ex_ckpt_save(const char *path, ex_net *net, const ex_ckpt_meta *meta)
{
	size_t wb = net->p.n * sizeof(float), sb = net->p.nbnstat * sizeof(float);
	float *w = xmalloc(wb ? wb : 1), *m = xmalloc(wb ? wb : 1), *bn = xmalloc(sb ? sb : 1);
	ex_dev_state st;
	int rc = ERR_ENV;
	if (cudaStreamSynchronize(net->stream) != cudaSuccess ||
	    cudaMemcpy(w, net->p.w32, wb, cudaMemcpyDeviceToHost) != cudaSuccess ||
	    cudaMemcpy(m, net->p.mom, wb, cudaMemcpyDeviceToHost) != cudaSuccess ||
	    (sb && cudaMemcpy(bn, net->p.bnstat, sb, cudaMemcpyDeviceToHost) != cudaSuccess) ||
	    cudaMemcpy(&st, net->st, sizeof(st), cudaMemcpyDeviceToHost) != cudaSuccess) {
		err_set("checkpoint: copying the training state from the GPU failed: %s",
			cudaGetErrorString(cudaGetLastError()));
		goto out;
	}
	ex_ckpt_section sec[] = {
		{ "meta", sizeof(*meta), meta },   { "opt_cfg", sizeof(net->opt), &net->opt },
		{ "dev_state", sizeof(st), &st },  { "w32", wb, w },
		{ "momentum", wb, m },             { "bnstat", sb, bn },
	};
	rc = ex_ckpt_write_sections(path, sec, (int)(sizeof(sec) / sizeof(sec[0])));
out:
	free(w);
	free(m);
	free(bn);
	return rc;
}

int ex_ckpt_load(const char *path, ex_net *net, ex_ckpt_meta *meta)
{
	ex_ckpt_file f;
	size_t wb = net->p.n * sizeof(float), sb = net->p.nbnstat * sizeof(float);
	int rc = ex_ckpt_read_sections(&f, path);
	if (rc)
		return rc;
	const void *pm = ex_ckpt_find(&f, "meta", sizeof(*meta));
	const void *po = pm ? ex_ckpt_find(&f, "opt_cfg", sizeof(net->opt)) : NULL;
	const void *ps = po ? ex_ckpt_find(&f, "dev_state", sizeof(ex_dev_state)) : NULL;
	const void *pw = ps ? ex_ckpt_find(&f, "w32", wb) : NULL;
	const void *pmo = pw ? ex_ckpt_find(&f, "momentum", wb) : NULL;
	const void *pb = pmo ? ex_ckpt_find(&f, "bnstat", sb) : NULL;
	if (!pb) {
		rc = err_prefix("%s", path);
		goto out;
	}
	memcpy(meta, pm, sizeof(*meta));
	memcpy(&net->opt, po, sizeof(net->opt));
	rc = ERR_ENV;
	if (cudaMemcpy(net->p.w32, pw, wb, cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaMemcpy(net->p.mom, pmo, wb, cudaMemcpyHostToDevice) != cudaSuccess ||
	    (sb && cudaMemcpy(net->p.bnstat, pb, sb, cudaMemcpyHostToDevice) != cudaSuccess) ||
	    cudaMemcpy(net->st, ps, sizeof(ex_dev_state), cudaMemcpyHostToDevice) != cudaSuccess) {
		err_set("%s: copying the checkpoint to the GPU failed: %s", path,
			cudaGetErrorString(cudaGetLastError()));
		goto out;
	}
	/* the compute-dtype copy of the weights follows the fp32 masters */
	if (net->p.wc && net->p.wc != (void *)net->p.w32)
		/* ex_dtype and ex_dist_dtype share their values (fp32 0, bf16 1, fp16 2) */
		ex_dist_convert(net->p.wc, (ex_dist_dtype)net->dt, net->p.w32, EX_DIST_FP32, (long)net->p.n,
				net->stream);
	if (cudaStreamSynchronize(net->stream) != cudaSuccess) {
		err_set("%s: restoring weights failed", path);
		goto out;
	}
	rc = 0;
out:
	ex_ckpt_file_free(&f);
	return rc;
}
