/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SCHED_USER_WORKER_H
#define _LINUX_SCHED_USER_WORKER_H

#include <linux/completion.h>

struct cpumask;

/**
 * struct user_worker - a one-shot worker thread of a user process
 * @fn: what the thread runs, once
 * @exited: completed when the thread is done with the worker
 */
struct user_worker {
	void (*fn)(struct user_worker *worker);
	struct completion exited;
};

int user_worker_start(struct user_worker *worker, const struct cpumask *cpus,
		      int node, const char *name);
void user_worker_wait(struct user_worker *worker);

#endif /* _LINUX_SCHED_USER_WORKER_H */
