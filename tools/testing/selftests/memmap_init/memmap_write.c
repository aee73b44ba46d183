// SPDX-License-Identifier: GPL-2.0
/*
 * memmap_write: write to a sysfs attribute in exactly one write() call and
 * report the outcome, for the memmap_init selftests.
 *
 *   memmap_write FILE STRING     write STRING (no newline added)
 *   memmap_write -u UID FILE STRING  the same as user UID (drops root first)
 *   memmap_write -s SIZE FILE WORD  write WORD padded with spaces to
 *                                SIZE bytes (an overlong valid word)
 *   memmap_write -l SECONDS FILE for SECONDS, write "default", "on" and
 *                                "off", with and without a newline, in turn
 *   memmap_write -x BLOCKDEV     open BLOCKDEV exclusively (O_EXCL) and
 *                                close it again, writing nothing: EBUSY
 *                                when a file system, swap, device mapper
 *                                or md holds it, in any mount namespace
 *
 * A single write (or -x) prints "ok" or the errno name (EINVAL, EBUSY, ...)
 * and exits 0 on success, 1 on failure.  The loop prints one line
 * "writes N ok N EBUSY N EOPNOTSUPP N other N" and exits 0 unless a write
 * failed with another error or wrote fewer bytes than asked, which it also
 * prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static const char *errno_name(int err)
{
	static char buf[32];

	switch (err) {
	case EINVAL:
		return "EINVAL";
	case EBUSY:
		return "EBUSY";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EIO:
		return "EIO";
	case E2BIG:
		return "E2BIG";
	case ENODEV:
		return "ENODEV";
	case ENXIO:
		return "ENXIO";
	case ENOENT:
		return "ENOENT";
	}
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* Write @len bytes of @buf to @path at once: 0 or an errno. */
static int write_once(const char *path, const char *buf, size_t len)
{
	ssize_t ret;
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	ret = write(fd, buf, len);
	if (ret < 0)
		err = errno;
	else if ((size_t)ret != len)
		err = EIO;
	close(fd);
	return err;
}

/* Claim and release the block device @path: 0 or an errno. */
static int open_excl(const char *path)
{
	int fd = open(path, O_RDONLY | O_EXCL);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int report(int err)
{
	puts(err ? errno_name(err) : "ok");
	return err ? 1 : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_loop(const char *path, double seconds)
{
	static const char * const words[] = {
		"default", "on\n", "off", "default\n", "on", "off\n",
	};
	unsigned long n = 0, ok = 0, busy = 0, notsupp = 0, other = 0;
	double end = now() + seconds;
	unsigned int i = 0;
	int err;

	while (now() < end) {
		const char *w = words[i++ % ARRAY_SIZE(words)];

		err = write_once(path, w, strlen(w));
		n++;
		if (!err) {
			ok++;
		} else if (err == EBUSY) {
			busy++;
		} else if (err == EOPNOTSUPP) {
			notsupp++;
		} else {
			other++;
			fprintf(stderr, "memmap_write: '%.*s' -> %s\n",
				(int)strcspn(w, "\n"), w, errno_name(err));
		}
	}
	printf("writes %lu ok %lu EBUSY %lu EOPNOTSUPP %lu other %lu\n",
	       n, ok, busy, notsupp, other);
	return other ? 1 : 0;
}

static void bad_args(void)
{
	fprintf(stderr,
		"usage: memmap_write FILE STRING | -u UID FILE STRING |\n"
		"       -s SIZE FILE WORD | -l SECONDS FILE | -x BLOCKDEV\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char *buf;
	long n;
	int err;

	if (argc == 5 && !strcmp(argv[1], "-s")) {
		n = strtol(argv[2], NULL, 0);
		if (n <= 0 || (size_t)n < strlen(argv[4]))
			bad_args();
		buf = malloc(n);
		if (!buf)
			return 1;
		memset(buf, ' ', n);
		memcpy(buf, argv[4], strlen(argv[4]));
		err = write_once(argv[3], buf, n);
		free(buf);
		return report(err);
	}
	if (argc == 4 && !strcmp(argv[1], "-l")) {
		double seconds = strtod(argv[2], NULL);

		if (seconds <= 0)
			bad_args();
		return write_loop(argv[3], seconds);
	}
	if (argc == 5 && !strcmp(argv[1], "-u")) {
		n = strtol(argv[2], NULL, 0);
		if (n <= 0)
			bad_args();
		if (setgid(n) || setuid(n)) {
			perror("memmap_write: setuid");
			return 2;
		}
		return report(write_once(argv[3], argv[4], strlen(argv[4])));
	}
	if (argc == 3 && !strcmp(argv[1], "-x"))
		return report(open_excl(argv[2]));
	if (argc == 3 && argv[1][0] != '-')
		return report(write_once(argv[1], argv[2], strlen(argv[2])));
	bad_args();
	return 2;
}
