/* web/web_page.c: whatif.html from the template and the WebAssembly script embedded at build time, and the
 * report's inputs as the page's default fragment.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "web/web.h"
#include "web/web_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "model/model.h"

static const web_file *embedded(const char *name)
{
	for (int i = 0; i < web_embedded_n; i++)
		if (strcmp(web_embedded[i].name, name) == 0)
			return &web_embedded[i];
	return NULL;
}

/* Appends s percent-encoded (all but RFC 3986's unreserved characters and ','), so that the fragment is
 * also safe inside the page's JavaScript string. */
static void put_encoded(strbuf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-_.~,", c))
			strbuf_addn(b, &c, 1);
		else
			strbuf_addf(b, "%%%02X", c);
	}
}

static void put_pair(strbuf *b, const char *key, const char *val)
{
	if (b->len_B)
		strbuf_addn(b, "&", 1);
	put_encoded(b, key);
	if (val) {
		strbuf_addn(b, "=", 1);
		put_encoded(b, val);
	}
}

static const struct option *long_opt(const struct option *opts, const char *name, size_t len)
{
	for (; opts->name; opts++)
		if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
			return opts;
	return NULL;
}

/* DIR/systems.csv's text (NULL when there is none): an --hwdb overlay's prices travel as the page's quote. */
static char *overlay_systems(const char *dir)
{
	char *path = xasprintf("%s/systems.csv", dir);
	FILE *f = fopen(path, "r");
	free(path);
	if (!f)
		return NULL;
	strbuf b;
	strbuf_init(&b);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		strbuf_addn(&b, chunk, n);
	fclose(f);
	if (!b.len_B) { /* an empty file: no quote */
		strbuf_free(&b);
		return NULL;
	}
	return b.s;
}

/* One option of the report's command line into the fragment: --out, --help and --profile (a file the page
 * cannot read) left out, of --gpus the first count, --hwdb as its systems.csv (the page's quote). */
static void put_option(strbuf *b, const char *name, const char *val)
{
	if (strcmp(name, "out") == 0 || strcmp(name, "help") == 0 || strcmp(name, "profile") == 0)
		return;
	if (strcmp(name, "gpus") == 0 && val) {
		char first[32];
		snprintf(first, sizeof first, "%.*s", (int)strcspn(val, ","), val);
		put_pair(b, name, first);
	} else if (strcmp(name, "hwdb") == 0 && val) {
		char *quote = overlay_systems(val);
		if (quote)
			put_pair(b, "quote", quote);
		free(quote);
	} else
		put_pair(b, name, val);
}

char *web_fragment(int argc, char **argv, const struct option *opts)
{
	strbuf b;
	strbuf_init(&b);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--", 2) != 0)
			continue;
		const char *eq = strchr(a + 2, '=');
		size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		const struct option *o = long_opt(opts, a + 2, n);
		if (!o)
			continue;
		const char *val = NULL;
		if (o->has_arg != no_argument)
			val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : "";
		put_option(&b, o->name, val);
	}
	return b.s;
}

/* The page's money inputs: one labelled number field per money option (model_money_inputs, the table the
 * command line's options come from), named as the option, its range as typed, its default as placeholder. */
static void money_inputs(FILE *f)
{
	int n;
	const model_money_input *in = model_money_inputs(&n);
	for (int i = 0; i < n; i++) {
		if (!in[i].flag)
			continue;
		fprintf(f, "<label>%s%s%s%s <input name=\"%s\" type=\"number\" step=\"any\" min=\"%g\" max=\"%g\" "
			   "placeholder=\"%g\"></label>\n", in[i].label, *in[i].unit ? " (" : "", in[i].unit,
			*in[i].unit ? ")" : "", in[i].flag, in[i].lo, in[i].hi, in[i].def / in[i].scale);
	}
}

/* Writes the template's text with @COMMAND@, @DEFAULTS@, @SCRIPT@ and @MONEY_INPUTS@ replaced. */
static void fill(FILE *f, const char *tpl, const char *command, const char *defaults, const web_file *js)
{
	static const char *const keys[] = {"@COMMAND@", "@DEFAULTS@", "@SCRIPT@", "@MONEY_INPUTS@"};
	const char *p = tpl;
	for (;;) {
		const char *next = NULL;
		int k = -1;
		for (int i = 0; i < 4; i++) {
			const char *at = strstr(p, keys[i]);
			if (at && (!next || at < next))
				next = at, k = i;
		}
		if (!next) {
			fputs(p, f);
			return;
		}
		fwrite(p, 1, (size_t)(next - p), f);
		if (k == 0)
			for (const char *c = command; *c; c++) /* HTML text: escape what markup would read */
				fputs(*c == '<' ? "&lt;" : *c == '>' ? "&gt;" : *c == '&' ? "&amp;" : (char[2]){*c, 0}, f);
		else if (k == 1)
			fputs(defaults, f);
		else if (k == 3)
			money_inputs(f);
		else
			fwrite(js->bytes, 1, js->len_B, f);
		p = next + strlen(keys[k]);
	}
}

int web_whatif_write(const char *path, const char *command, const char *defaults, char *why, size_t why_len)
{
	const web_file *tpl = embedded("whatif.html.in"), *js = embedded("whatif.js"), *no = embedded("whatif.why");
	if (!tpl || !js || js->len_B == 0) {
		snprintf(why, why_len, "%s", no && no->len_B ? (const char *)no->bytes : "this build has no WebAssembly");
		why[strcspn(why, "\n")] = '\0';
		return WEB_LEFT_OUT;
	}
	/* the script must not close its <script> element early */
	if (strstr((const char *)js->bytes, "</script")) {
		snprintf(why, why_len, "the built script contains '</script' and cannot be embedded (a build problem)");
		return WEB_LEFT_OUT;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		err_set("cannot write %s: %s", path, strerror(errno));
		return ERR_ENV;
	}
	fill(f, (const char *)tpl->bytes, command, defaults, js);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		err_set("write error in %s", path);
		return ERR_ENV;
	}
	return 0;
}
