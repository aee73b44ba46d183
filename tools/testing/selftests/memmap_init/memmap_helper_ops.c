// SPDX-License-Identifier: GPL-2.0
/*
 * memmap_helper_ops: what a process may do to the helper threads of a
 * multithreaded memmap init (named memmap_init), for memmap_threads.sh.
 * HOLD is test_memmap_hold's debugfs file, armed by the caller: the
 * helper it holds has a chunk of the bind to write, so what is done
 * while it is held is done mid-bind.
 *
 *   memmap_helper_ops -p FILE STRING MARKER HOLD
 *	write STRING to FILE from a child process; once HOLD holds a helper
 *	of the child, write "mi_signal ptrace" to MARKER (a trace marker),
 *	attach to that helper with PTRACE_ATTACH and wait for it: print
 *	"exited" when it exits without stopping for the tracer, "stopped"
 *	(and detach) when it stops.  Then wait for the child's write to
 *	end and kill the child.
 *   memmap_helper_ops -e FILE STRING MARKER HOLD
 *	write STRING to FILE from a second thread; once HOLD holds a helper
 *	of this process, write "mi_signal exec" to MARKER and exec
 *	"memmap_helper_ops -x" from the first thread, which waits for the
 *	writing thread to end.
 *   memmap_helper_ops -x
 *	print "exec ok".
 *
 * Exit 0 when it did that, 1 on a failure: a write that failed, or one
 * that ended with no helper of the writer held.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int mark(const char *marker, const char *text)
{
	int fd = open(marker, O_WRONLY);
	int ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	if (!ok)
		printf("cannot write the trace marker %s\n", marker);
	return ok;
}

/* Attach to helper @tid, which HOLD holds, and report how it ended. */
static int attach(pid_t tid, const char *marker)
{
	int status;

	if (!mark(marker, "mi_signal ptrace"))
		return 1;
	if (ptrace(PTRACE_ATTACH, tid, NULL, NULL)) {
		printf("PTRACE_ATTACH %d: %s\n", tid, strerror(errno));
		return 1;
	}
	if (waitpid(tid, &status, __WALL) != tid) {
		printf("waitpid %d: %s\n", tid, strerror(errno));
		return 1;
	}
	if (WIFSTOPPED(status)) {
		printf("stopped\n");
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return 0;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		printf("exited\n");
		return 0;
	}
	printf("helper %d ended with status 0x%x\n", tid, status);
	return 1;
}

/* Write @string to @file in one write(); 0 or the errno. */
static int write_file(const char *file, const char *string)
{
	int fd = open(file, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, string, strlen(string)) < 0)
		err = errno;
	close(fd);
	return err;
}

/*
 * The exec's writing thread; done is its errno + 1 once its write is
 * over.  Static: the thread may outlive the frame that started it.
 */
struct write_arg {
	const char *file;
	const char *string;
	int done;
};

static struct write_arg arg;

static void *writer(void *data)
{
	struct write_arg *a = data;

	__atomic_store_n(&a->done, write_file(a->file, a->string) + 1,
			 __ATOMIC_RELEASE);
	return NULL;
}

/* After the write ended (@err + 1 in @done) with no helper held. */
static int no_helper(int done)
{
	if (done > 1)
		printf("write: %s\n", strerror(done - 1));
	else
		printf("the write ended with no helper held\n");
	return 1;
}

/*
 * The helper that @hold holds, when it is a thread of process @pid; 0
 * while it holds none, -1 (saying why) when it holds another's or cannot
 * be read.
 */
static pid_t held_helper(const char *hold, pid_t pid)
{
	char line[64], path[64];
	pid_t tid = 0;
	FILE *f;

	f = fopen(hold, "r");
	if (!f) {
		printf("%s: %s\n", hold, strerror(errno));
		return -1;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	if (!strncmp(line, "armed", 5))
		return 0;
	if (sscanf(line, "held %d", &tid) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, tid);
		if (!access(path, F_OK))
			return tid;
	}
	printf("%s: \"%.*s\", not a helper of %d held\n", hold,
	       (int)strcspn(line, "\n"), line, pid);
	return -1;
}

static int trace_during(const char *file, const char *string,
			const char *marker, const char *hold)
{
	int done[2], err = 0, rc;
	pid_t child, tid;

	if (pipe(done) || fcntl(done[0], F_SETFL, O_NONBLOCK)) {
		perror("pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		err = write_file(file, string);
		/* The write is over: tell the parent, and wait to be killed. */
		if (write(done[1], &err, sizeof(err)) != sizeof(err))
			_exit(1);
		for (;;)
			pause();
	}
	close(done[1]);
	while (!(tid = held_helper(hold, child))) {
		ssize_t r = read(done[0], &err, sizeof(err));

		if (r == sizeof(err))
			break;
		if (r >= 0 || errno != EAGAIN) {
			printf("the writing child ended without a report\n");
			tid = -1;
			break;
		}
		/* The held helper takes a CPU: leave the other to the rest. */
		usleep(1000);
	}
	if (!tid) {
		rc = no_helper(err + 1);
	} else if (tid < 0) {
		rc = 1;
	} else {
		rc = attach(tid, marker);
		/* The write's outcome, once the child reports it. */
		fcntl(done[0], F_SETFL, 0);
		if (read(done[0], &err, sizeof(err)) != sizeof(err)) {
			printf("the writing child did not report\n");
			rc = 1;
		} else if (err) {
			printf("write: %s\n", strerror(err));
			rc = 1;
		}
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return rc;
}

static int exec_during(const char *file, const char *string,
		       const char *marker, const char *hold, const char *self)
{
	pthread_t thread;
	pid_t tid;
	int done;

	arg.file = file;
	arg.string = string;
	if (pthread_create(&thread, NULL, writer, &arg)) {
		printf("pthread_create failed\n");
		return 1;
	}
	while (!(tid = held_helper(hold, getpid()))) {
		done = __atomic_load_n(&arg.done, __ATOMIC_ACQUIRE);
		if (done) {
			pthread_join(thread, NULL);
			return no_helper(done);
		}
		usleep(1000);
	}
	if (tid > 0 && mark(marker, "mi_signal exec")) {
		execl(self, self, "-x", (char *)NULL);
		printf("exec %s: %s\n", self, strerror(errno));
	}
	/* The write goes on until the module's timeout lets the helper go. */
	pthread_join(thread, NULL);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "-p"))
		return trace_during(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 6 && !strcmp(argv[1], "-e"))
		return exec_during(argv[2], argv[3], argv[4], argv[5],
				   "/proc/self/exe");
	if (argc == 2 && !strcmp(argv[1], "-x")) {
		printf("exec ok\n");
		return 0;
	}
	fprintf(stderr,
		"usage: %s -p|-e FILE STRING MARKER HOLD | -x\n", argv[0]);
	return 1;
}
