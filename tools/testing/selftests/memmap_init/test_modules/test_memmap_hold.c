// SPDX-License-Identifier: GPL-2.0
/*
 * Hold a helper of the multithreaded memmap init at the start of a chunk
 * until something happens to its process, so that memmap_threads.sh can
 * stop, freeze, kill, ptrace or exec a binding process while one of its
 * helpers has a chunk to write: without it, that depends on the test
 * seeing a helper that lives for a few milliseconds, and on the vCPUs of
 * a guest keeping pace with each other.
 *
 * Write "arm" to /sys/kernel/debug/test_memmap_hold: the next helper of a
 * user task (a thread named memmap_init with PF_USER_WORKER) to start a
 * chunk (zone_device_memmap_init_range(), traced with an ftrace_ops) spins
 * there until, first of all,
 *
 *   exec	its process execs (another thread is in de_thread()),
 *   kill	it has a fatal signal pending,
 *   ptrace	a tracer attaches to it,
 *   stop	its process has SIGSTOP pending,
 *   freeze	its cgroup freezes it,
 *   timeout	timeout_ms went by,
 *   unload	the module is being unloaded,
 *
 * and then writes its chunk.  Meanwhile the binding thread, and any other
 * user task that starts a chunk, waits at the start of its chunk until a
 * helper is held, so that a helper always gets a chunk to be held in: one
 * that started late would otherwise find every chunk taken.  When no
 * helper comes within timeout_ms, the hold is released with TID 0 and
 * EVENT "nohelper".  Read the file back for where it is:
 *
 *   idle | armed | held TID | released TID EVENT
 *
 * "disarm" undoes "arm".  Both are refused with -EBUSY while a helper is
 * held.  The spins run with preemption disabled (in the ftrace callback)
 * and are bounded by timeout_ms: a test must act within it.  A kernel
 * whose zone_device_memmap_init_range() was renamed fails the load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/jobctl.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

static unsigned int timeout_ms = 5000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "longest hold, and longest wait for a helper, in ms (default 5000)");

/*
 * The function a thread calls for each chunk it takes; the glob also
 * matches a copy the compiler specialized (.isra, .constprop).
 */
#define HOLD_FUNC	"zone_device_memmap_init_range*"

/* HOLD_TAKEN: a helper has claimed the hold and is noting its TID. */
enum { HOLD_IDLE, HOLD_ARMED, HOLD_TAKEN, HOLD_HELD, HOLD_RELEASED };

static atomic_t hold_state = ATOMIC_INIT(HOLD_IDLE);
static pid_t hold_tid;
static const char *hold_event;
static bool hold_unloading;
static struct dentry *hold_file;

/* What, if anything, has happened to @t's process: see the top. */
static const char *hold_check(struct task_struct *t)
{
	if (READ_ONCE(t->signal->group_exec_task))
		return "exec";
	if (fatal_signal_pending(t))
		return "kill";
	if (READ_ONCE(t->ptrace))
		return "ptrace";
	if (sigismember(&t->signal->shared_pending.signal, SIGSTOP))
		return "stop";
	if (READ_ONCE(t->jobctl) & JOBCTL_TRAP_FREEZE)
		return "freeze";
	return NULL;
}

/*
 * What happened, read under the siglock that each of those events is
 * made under: de_thread() sets group_exec_task and then sends SIGKILL to
 * the other threads, and an exec must not be taken for a kill.
 */
static const char *hold_event_locked(void)
{
	spinlock_t *lock = &current->sighand->siglock;
	const char *event;
	unsigned long flags;

	/* A thread that is not the exec's keeps its sighand. */
	spin_lock_irqsave(lock, flags);
	event = hold_check(current) ?: "unknown";
	spin_unlock_irqrestore(lock, flags);
	return event;
}

static void hold_release(pid_t tid, const char *event)
{
	WRITE_ONCE(hold_tid, tid);
	WRITE_ONCE(hold_event, event);
	atomic_set_release(&hold_state, HOLD_RELEASED);
}

/* A thread that is not a helper waits while no helper is held. */
static void hold_wait_for_helper(u64 end)
{
	while (atomic_read_acquire(&hold_state) == HOLD_ARMED) {
		if (READ_ONCE(hold_unloading) ||
		    ktime_get_mono_fast_ns() > end) {
			if (atomic_cmpxchg(&hold_state, HOLD_ARMED,
					   HOLD_TAKEN) == HOLD_ARMED)
				hold_release(0, "nohelper");
			return;
		}
		cpu_relax();
	}
}

static void hold_callback(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	u64 end = ktime_get_mono_fast_ns() + (u64)timeout_ms * NSEC_PER_MSEC;
	const char *event = NULL;

	if (atomic_read(&hold_state) != HOLD_ARMED || !current->mm)
		return;
	if (!(current->flags & PF_USER_WORKER) ||
	    strcmp(current->comm, "memmap_init")) {
		hold_wait_for_helper(end);
		return;
	}
	if (atomic_cmpxchg(&hold_state, HOLD_ARMED, HOLD_TAKEN) != HOLD_ARMED)
		return;

	WRITE_ONCE(hold_tid, task_pid_vnr(current));
	atomic_set_release(&hold_state, HOLD_HELD);
	while (!hold_check(current)) {
		if (READ_ONCE(hold_unloading))
			event = "unload";
		else if (ktime_get_mono_fast_ns() > end)
			event = "timeout";
		if (event)
			break;
		cpu_relax();
	}
	hold_release(READ_ONCE(hold_tid), event ?: hold_event_locked());
}

static struct ftrace_ops hold_ops = {
	.func	= hold_callback,
};

static ssize_t hold_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char buf[16];
	int old;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	if (sysfs_streq(buf, "arm")) {
		old = atomic_read(&hold_state);
		if (old == HOLD_TAKEN || old == HOLD_HELD ||
		    atomic_cmpxchg(&hold_state, old, HOLD_ARMED) != old)
			return -EBUSY;
	} else if (sysfs_streq(buf, "disarm")) {
		old = atomic_read(&hold_state);
		if (old == HOLD_TAKEN || old == HOLD_HELD ||
		    atomic_cmpxchg(&hold_state, old, HOLD_IDLE) != old)
			return -EBUSY;
	} else {
		return -EINVAL;
	}
	return count;
}

static ssize_t hold_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	char buf[64];
	int len;

	switch (atomic_read_acquire(&hold_state)) {
	case HOLD_ARMED:
	case HOLD_TAKEN:
		len = scnprintf(buf, sizeof(buf), "armed\n");
		break;
	case HOLD_HELD:
		len = scnprintf(buf, sizeof(buf), "held %d\n",
				READ_ONCE(hold_tid));
		break;
	case HOLD_RELEASED:
		len = scnprintf(buf, sizeof(buf), "released %d %s\n",
				READ_ONCE(hold_tid), READ_ONCE(hold_event));
		break;
	default:
		len = scnprintf(buf, sizeof(buf), "idle\n");
		break;
	}
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations hold_fops = {
	.owner	= THIS_MODULE,
	.read	= hold_read,
	.write	= hold_write,
	.llseek	= default_llseek,
};

static int __init test_memmap_hold_init(void)
{
	unsigned char func[] = HOLD_FUNC;
	int ret;

	/* Fails when the kernel has no multithreaded memmap init. */
	ret = ftrace_set_filter(&hold_ops, func, strlen(HOLD_FUNC), 1);
	if (ret) {
		pr_err("cannot trace %s: %d\n", HOLD_FUNC, ret);
		ftrace_free_filter(&hold_ops);
		return ret;
	}
	ret = register_ftrace_function(&hold_ops);
	if (ret) {
		pr_err("cannot register the ftrace_ops: %d\n", ret);
		ftrace_free_filter(&hold_ops);
		return ret;
	}
	hold_file = debugfs_create_file(KBUILD_MODNAME, 0600, NULL, NULL,
					&hold_fops);
	return 0;
}

static void __exit test_memmap_hold_exit(void)
{
	debugfs_remove(hold_file);
	WRITE_ONCE(hold_unloading, true);
	unregister_ftrace_function(&hold_ops);
	ftrace_free_filter(&hold_ops);
}

module_init(test_memmap_hold_init);
module_exit(test_memmap_hold_exit);
MODULE_DESCRIPTION("Hold a helper of the multithreaded memmap init for the memmap_init selftests");
MODULE_LICENSE("GPL");
