// SPDX-License-Identifier: GPL-2.0
/*
 * memmap_helper_ops: what a process may do to the helper threads of a
 * multithreaded memmap init (named memmap_init), for memmap_threads.sh.
 *
 *   memmap_helper_ops -p FILE STRING MARKER
 *	write STRING to FILE from a child process; once the child has a
 *	thread named memmap_init, attach to that thread with PTRACE_ATTACH,
 *	write "mi_signal ptrace" to MARKER (a trace marker) and wait for the
 *	thread: print "exited" when it exits without stopping for the
 *	tracer, "stopped" (and detach) when it stops.  Then wait for the
 *	child's write to end and kill the child.
 *   memmap_helper_ops -e FILE STRING MARKER
 *	write STRING to FILE from a second thread; once this process has a
 *	thread named memmap_init, write "mi_signal exec" to MARKER and exec
 *	"memmap_helper_ops -x" from the first thread, which waits for the
 *	writing thread to end.
 *   memmap_helper_ops -x
 *	print "exec ok".
 *
 * Exit 0 when it did that, 1 on a failure (a write that failed
 * included), 4 (KSFT_SKIP) when nothing was tested: no memmap_init thread
 * appeared while the write ran, or it was gone before the attach.
 */
#include <dirent.h>
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

#define SKIP	4

/* Whether thread @tid of process @pid is gone or exiting. */
static int gone(pid_t pid, pid_t tid)
{
	char path[64], line[512], *state;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	ok = !!fgets(line, sizeof(line), f);
	fclose(f);
	state = ok ? strrchr(line, ')') : NULL;
	return !state || state[1] != ' ' || state[2] == 'Z' || state[2] == 'X';
}

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

/* Attach to helper @tid of process @pid and report how it ended. */
static int attach(pid_t pid, pid_t tid, const char *marker)
{
	int status;

	if (ptrace(PTRACE_ATTACH, tid, NULL, NULL)) {
		int err = errno;

		if (err == ESRCH || (err == EPERM && gone(pid, tid))) {
			printf("helper %d gone before PTRACE_ATTACH\n", tid);
			return SKIP;
		}
		printf("PTRACE_ATTACH %d: %s\n", tid, strerror(err));
		return 1;
	}
	if (!mark(marker, "mi_signal ptrace"))
		return 1;
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

/* After the write ended (@err + 1 in @done) with no helper seen. */
static int no_helper(int done)
{
	if (done > 1) {
		printf("write: %s\n", strerror(done - 1));
		return 1;
	}
	printf("no memmap_init thread seen while the write ran\n");
	return SKIP;
}

/* A thread of process @pid named memmap_init, or 0. */
static pid_t find_helper(pid_t pid)
{
	char path[300], comm[32];
	struct dirent *d;
	pid_t tid = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!tid && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "memmap_init\n"))
			tid = atoi(d->d_name);
		fclose(f);
	}
	closedir(dir);
	return tid;
}

static int trace_during(const char *file, const char *string,
			const char *marker)
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
	while (!(tid = find_helper(child)))
		if (read(done[0], &err, sizeof(err)) == sizeof(err) || errno != EAGAIN)
			break;
	if (!tid) {
		rc = no_helper(err + 1);
	} else {
		rc = attach(child, tid, marker);
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
		       const char *marker, const char *self)
{
	pthread_t thread;
	int done;

	arg.file = file;
	arg.string = string;
	if (pthread_create(&thread, NULL, writer, &arg)) {
		printf("pthread_create failed\n");
		return 1;
	}
	while (!find_helper(getpid())) {
		done = __atomic_load_n(&arg.done, __ATOMIC_ACQUIRE);
		if (done) {
			pthread_join(thread, NULL);
			return no_helper(done);
		}
	}
	if (mark(marker, "mi_signal exec"))
		execl(self, self, "-x", (char *)NULL);
	printf("exec %s: %s\n", self, strerror(errno));
	pthread_join(thread, NULL);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "-p"))
		return trace_during(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "-e"))
		return exec_during(argv[2], argv[3], argv[4], "/proc/self/exe");
	if (argc == 2 && !strcmp(argv[1], "-x")) {
		printf("exec ok\n");
		return 0;
	}
	fprintf(stderr,
		"usage: %s -p|-e FILE STRING MARKER | -x\n", argv[0]);
	return 1;
}
