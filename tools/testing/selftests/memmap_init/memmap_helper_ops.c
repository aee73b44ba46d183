// SPDX-License-Identifier: GPL-2.0
/*
 * memmap_helper_ops: what a process may do to the helper threads of a
 * multithreaded memmap init (named memmap_init), for memmap_threads.sh.
 *
 *   memmap_helper_ops -p FILE STRING MARKER
 *	write STRING to FILE from a child process; once the child has a
 *	thread named memmap_init, write "mi_signal ptrace" to MARKER (a trace
 *	marker), attach to that thread with PTRACE_ATTACH and wait for it:
 *	print "exited" when it exits without stopping for the tracer,
 *	"stopped" (and detach) when it stops; then kill the child.  Exit 0
 *	after either, 1 on an error, 2 when the helper was gone before the
 *	attach or no helper appeared while the write ran.
 *   memmap_helper_ops -e FILE STRING MARKER
 *	write STRING to FILE from a second thread; once this process has a
 *	thread named memmap_init, write "mi_signal exec" to MARKER (a trace
 *	marker) and exec "memmap_helper_ops -x" from the first thread,
 *	which waits for the writing thread to end.  Exit 2, printing why,
 *	when no such thread appeared while the write ran.
 *   memmap_helper_ops -x
 *	print "exec ok" and exit 0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int attach(pid_t tid)
{
	int status;

	if (ptrace(PTRACE_ATTACH, tid, NULL, NULL)) {
		printf("PTRACE_ATTACH %d: %s\n", tid, strerror(errno));
		return errno == ESRCH ? 2 : 1;
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
	printf("exited\n");
	return 0;
}

struct write_arg {
	const char *file;
	const char *string;
	int done;
};

static void *writer(void *data)
{
	struct write_arg *arg = data;
	int fd = open(arg->file, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, arg->string, strlen(arg->string)) < 0)
			perror("write");
		close(fd);
	}
	__atomic_store_n(&arg->done, 1, __ATOMIC_RELEASE);
	return NULL;
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

static int trace_during(const char *file, const char *string,
			const char *marker)
{
	int done[2], rc;
	pid_t child, tid;
	char c;

	if (pipe(done))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		int fd = open(file, O_WRONLY);

		if (fd < 0 || write(fd, string, strlen(string)) < 0)
			perror("write");
		/* The write is over: tell the parent, and wait to be killed. */
		if (write(done[1], "", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(done[1]);
	fcntl(done[0], F_SETFL, O_NONBLOCK);
	while (!(tid = find_helper(child)))
		if (read(done[0], &c, 1) >= 0 || errno != EAGAIN)
			break;
	if (!tid) {
		printf("no memmap_init thread seen while the write ran\n");
		rc = 2;
	} else {
		rc = mark(marker, "mi_signal ptrace") ? attach(tid) : 1;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return rc;
}

static int exec_during(const char *file, const char *string,
		       const char *marker, const char *self)
{
	struct write_arg arg = { .file = file, .string = string };
	pthread_t thread;

	if (pthread_create(&thread, NULL, writer, &arg)) {
		printf("pthread_create failed\n");
		return 1;
	}
	while (!find_helper(getpid()))
		if (__atomic_load_n(&arg.done, __ATOMIC_ACQUIRE)) {
			printf("no memmap_init thread seen while the write ran\n");
			pthread_join(thread, NULL);
			return 2;
		}
	if (!mark(marker, "mi_signal exec"))
		return 1;
	execl(self, self, "-x", (char *)NULL);
	printf("exec %s: %s\n", self, strerror(errno));
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
