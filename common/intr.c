/* Interrupts: SIGINT and SIGTERM recorded by a handler and polled by long work, so that a command
 * stopped by ^C or `kill` removes its temporary files instead of dying half-way.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The one mutable global of the program, and why: a signal handler can reach nothing else. It holds
 * the number of the first SIGINT/SIGTERM received, 0 while none; written only by the handler. */
static volatile sig_atomic_t intr_signo;

static void intr_handler(int signo)
{
	intr_signo = signo;
}

/* SA_RESETHAND: the first signal asks the work to stop; a second one finds the default action and
 * ends the program at once (for work that stopped polling). SA_RESTART: reads and writes under way
 * finish normally. Fails with ERR_ENV when sigaction does (it does not for these two signals). */
int intr_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = intr_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0) {
		err_set("cannot install the SIGINT/SIGTERM handlers: %s", strerror(errno));
		return ERR_ENV;
	}
	return 0;
}

int intr_hold(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) {
		err_set("cannot block SIGINT/SIGTERM: %s", strerror(errno));
		return ERR_ENV;
	}
	return 0;
}

bool intr_pending(void)
{
	return intr_signo != 0;
}

int intr_exit_code(void)
{
	return intr_signo ? 128 + (int)intr_signo : 0;
}

const char *intr_name(void)
{
	return intr_signo == SIGINT ? "SIGINT" : intr_signo == SIGTERM ? "SIGTERM" : "none";
}

void intr_phase(const char *phase)
{
	const char *want = getenv("SCALEPLAN_TEST_SIGNAL");
	size_t n = strlen(phase);
	if (!want || strncmp(want, phase, n) != 0 || want[n] != ':')
		return;
	if (strcmp(want + n + 1, "INT") == 0)
		kill(getpid(), SIGINT);
	else if (strcmp(want + n + 1, "TERM") == 0)
		kill(getpid(), SIGTERM);
}

int exit_code_of(int err)
{
	if (err == 0)
		return EXIT_OK;
	if (err == ERR_INTR && intr_exit_code())
		return intr_exit_code();
	return err == ERR_ENV ? EXIT_ENV : EXIT_INPUT;
}

/* "PATH: interrupted (SIGINT); nothing written" for the callers' messages; returns ERR_INTR. */
int intr_err(const char *path)
{
	err_set("%s: interrupted (%s); not written", path, intr_name());
	return ERR_INTR;
}
