/* web/ (web_page.c): the report's inputs as the page's fragment, and whatif.html written from the template
 * with every placeholder filled (or left out with a reason when this build has no WebAssembly).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "web/web.h"
#include "tests/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"

static const struct option opts[] = {
	{"systems", required_argument, NULL, 'S'}, {"gpus", required_argument, NULL, 'g'},
	{"budget", required_argument, NULL, 'b'},  {"out", required_argument, NULL, 'o'},
	{"partial-nodes", no_argument, NULL, 'p'}, {"deadline", required_argument, NULL, 'd'},
	{"kwh-price", required_argument, NULL, 'k'}, {"hwdb", required_argument, NULL, 'H'},
	{"profile", required_argument, NULL, 'P'}, {0, 0, 0, 0},
};

static void test_fragment(test_ctx *t)
{
	char dir[] = "/tmp/test_web_dir_XXXXXX";
	TEST_CHECK(t, mkdtemp(dir) != NULL, "mkdtemp");
	char *csv = xasprintf("%s/systems.csv", dir), *hwdb = xasprintf("--hwdb=%s", dir);
	FILE *f = fopen(csv, "w");
	fputs("id,price_usd\ndgxh100,1\n", f);
	fclose(f);
	char *argv[] = {"report", "--systems", "dgxh100,gb200-nvl72", "--gpus", "64,16", "--budget=8000000", "--out",
			"D", "--partial-nodes", "--deadline", "2 h&x", "--kwh-price", "0.2", "--nosuch", hwdb,
			"--profile", "p.csv", NULL};
	char *s = web_fragment(17, argv, opts);
	/* --out and --profile left out, the first GPU count, '=' given or not, a flag without a value, space and
	 * & encoded, --hwdb DIR as its systems.csv */
	TEST_CHECK(t, strcmp(s, "systems=dgxh100,gb200-nvl72&gpus=64&budget=8000000&partial-nodes&"
				"deadline=2%20h%26x&kwh-price=0.2&quote=id,price_usd%0Adgxh100,1%0A") == 0, "fragment %s", s);
	free(s);
	char *none[] = {"report", NULL};
	s = web_fragment(1, none, opts);
	TEST_CHECK(t, strcmp(s, "") == 0, "empty: %s", s);
	free(s);
	unlink(csv);
	rmdir(dir);
	free(csv);
	free(hwdb);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = xmalloc((size_t)n + 1);
	s[fread(s, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return s;
}

static void test_page(test_ctx *t)
{
	char path[] = "/tmp/test_web_XXXXXX", why[256] = "";
	int fd = mkstemp(path);
	TEST_CHECK(t, fd >= 0, "mkstemp");
	close(fd);
	int rc = web_whatif_write(path, "scaleplan report --systems <a&b>", "gpus=64&budget=1", why, sizeof why);
	if (rc == WEB_LEFT_OUT) {
		TEST_CHECK(t, why[0] != '\0', "left out without a reason");
		printf("test_web: whatif.html left out by this build (%s): page checks skipped\n", why);
		unlink(path);
		return;
	}
	TEST_CHECK(t, rc == 0, "web_whatif_write: %d %s", rc, err_msg());
	char *s = slurp(path);
	TEST_CHECK(t, s && !strstr(s, "@SCRIPT@") && !strstr(s, "@DEFAULTS@") && !strstr(s, "@COMMAND@"),
		   "a placeholder left in the page");
	TEST_CHECK(t, s && strstr(s, "\"gpus=64&budget=1\""), "defaults not in the page");
	TEST_CHECK(t, s && strstr(s, "scaleplan report --systems &lt;a&amp;b&gt;"), "command not escaped");
	TEST_CHECK(t, s && strstr(s, "web_compare") && strstr(s, "id=\"answer\"") && strstr(s, "id=\"options\""),
		   "the script or the answer/options elements missing");
	free(s);
	unlink(path);
	TEST_CHECK(t, web_whatif_write("/nonexistent-dir/whatif.html", "", "", why, sizeof why) == ERR_ENV,
		   "an unwritable path is an environment error");
}

int main(void)
{
	test_ctx t = {0};
	test_fragment(&t);
	test_page(&t);
	return test_report(&t);
}
