// SPDX-License-Identifier: GPL-2.0-or-later
/* outfile.c - files written on the host: complete or not at all, through links, attributes kept */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "output/outfile.h"
#include "output/names.h"

static void cli_out_why(struct cli_outfile *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void cli_out_why(struct cli_outfile *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
}

const char *cli_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

/* The directory part of @path ("." for a bare name); NULL without memory. */
static char *cli_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, slash - path);
}

errcode_t cli_follow_links(const char *path, char **target)
{
	char *p = strdup(path), *link = NULL, *dir, *next;
	struct stat st;
	ssize_t n;

	for (int hops = 0; p; hops++) {
		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode)) {
			*target = p;
			return 0;
		}
		if (hops == 40) {
			free(p);
			return ELOOP;
		}
		link = malloc(st.st_size + 2);
		if (!link)
			break;
		n = readlink(p, link, st.st_size + 1);
		if (n < 0 || n > st.st_size) {
			errcode_t err = n < 0 ? errno : EAGAIN;

			free(link);
			free(p);
			return err;
		}
		link[n] = '\0';
		dir = strchr(p, '/') && link[0] != '/' ? cli_dir_of(p) : NULL;
		if (dir) {
			if (asprintf(&next, "%s/%s", dir, link) < 0)
				next = NULL;
			free(dir);
			free(link);
		} else {
			next = link;
		}
		free(p);
		p = next;
	}
	free(p);
	return ENOMEM;
}

static void cli_proc_fd(char *buf, size_t size, int fd)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

int cli_tmpfile(const char *dir, mode_t mode, char **name)
{
	char proc[32], *tmpl;
	int fd;

	if (name)
		*name = NULL;
	/* no name at all: gone with the process, however it ends */
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (fd >= 0) {
		cli_proc_fd(proc, sizeof(proc), fd);
		if (!name || access(proc, F_OK) == 0) {
			if (name && !(*name = strdup(proc))) {
				close(fd);
				errno = ENOMEM;
				return -1;
			}
			return fd;
		}
		/* no /proc to reach it by: a name is needed */
		close(fd);
	} else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		return -1;
	}
	if (asprintf(&tmpl, "%s/e2verity-XXXXXX", dir) < 0) {
		errno = ENOMEM;
		return -1;
	}
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		free(tmpl);
		return -1;
	}
	if (name) {
		*name = tmpl;
	} else {
		unlink(tmpl);
		free(tmpl);
	}
	return fd;
}

/*
 * The new file gets what the old one had: owner and group first (a chown
 * clears set-id bits), then its extended attributes (the ACLs among them),
 * then its mode.  Security labels are the policy's to give.
 */
static errcode_t cli_copy_attrs(struct cli_outfile *o)
{
	char *names = NULL, *val = NULL;
	ssize_t len, vlen;
	errcode_t err = 0;

	if ((o->st.st_uid != geteuid() || o->st.st_gid != getegid()) &&
	    fchown(o->fd, o->st.st_uid, o->st.st_gid) < 0) {
		err = errno;
		cli_out_why(o, " (owned by %u:%u, which a new file of this user cannot be)",
			    (unsigned int)o->st.st_uid, (unsigned int)o->st.st_gid);
		return err;
	}
	len = listxattr(o->target, NULL, 0);
	if (len > 0) {
		names = malloc(len);
		if (!names)
			return ENOMEM;
		len = listxattr(o->target, names, len);
	}
	for (ssize_t i = 0; len > 0 && i < len && !err; i += strlen(names + i) + 1) {
		const char *n = names + i;

		vlen = getxattr(o->target, n, NULL, 0);
		if (vlen < 0)
			continue; /* gone meanwhile */
		free(val);
		val = malloc(vlen ? vlen : 1);
		if (!val) {
			err = ENOMEM;
			break;
		}
		vlen = getxattr(o->target, n, val, vlen);
		if (vlen < 0)
			continue;
		if (fsetxattr(o->fd, n, val, vlen, 0) < 0 && strncmp(n, "security.", 9) != 0) {
			err = errno;
			cli_out_why(o, " (its attribute '%s' cannot be given to a new file)",
				    cli_name(n));
		}
	}
	free(val);
	free(names);
	if (!err && fchmod(o->fd, o->st.st_mode & 07777) < 0)
		err = errno;
	return err;
}

/* The content goes to a file without a name, copied into @o->out at the commit. */
static errcode_t cli_open_in_place(struct cli_outfile *o)
{
	o->out = open(o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (o->out < 0)
		return errno;
	o->fd = cli_tmpfile(cli_tmpdir(), 0600, NULL);
	if (o->fd < 0) {
		errcode_t err = errno;

		cli_out_why(o, " (no temporary file in '%s')", cli_name(cli_tmpdir()));
		return err;
	}
	return 0;
}

errcode_t cli_outfile_open(struct cli_outfile *o, const char *path, unsigned int flags)
{
	const int whole = flags & CLI_OUT_WHOLE;
	char *dir = NULL;
	errcode_t err;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = o->out = -1;
	o->opened = 1;
	err = cli_follow_links(path, &o->target);
	if (err)
		return err;
	if (stat(o->target, &o->st) == 0) {
		o->existed = 1;
		if (S_ISDIR(o->st.st_mode))
			return EISDIR;
		if (!S_ISREG(o->st.st_mode)) {
			if (whole) {
				cli_out_why(o, " (not a regular file)");
				return EINVAL;
			}
			/* a device, a FIFO: written to, as the shell's '>' would */
			return cli_open_in_place(o);
		}
		if (o->st.st_nlink > 1) {
			if (whole) {
				cli_out_why(o,
					    " (it has %lu hard links, and is written back as a new "
					    "file, which the other names would not see: give it a "
					    "copy of its own first)",
					    (unsigned long)o->st.st_nlink);
				return EMLINK;
			}
			/* every name sees the new content */
			return cli_open_in_place(o);
		}
	} else if (errno != ENOENT) {
		return errno;
	}
	dir = cli_dir_of(o->target);
	if (!dir)
		return ENOMEM;
	/* a new file gets the mode (umask, default ACL) that creat() would give it */
	o->fd = cli_tmpfile(dir, o->existed ? 0600 : 0666, &o->tmpname);
	if (o->fd < 0) {
		err = errno;
		if (o->existed && !whole && (err == EACCES || err == EPERM || err == EROFS)) {
			/* a directory not ours to add to: the file itself may be */
			free(dir);
			return cli_open_in_place(o);
		}
		if (o->existed || err != ENOENT)
			cli_out_why(o, " (no new file can be made in '%s')", cli_name(dir));
		free(dir);
		return err;
	}
	free(dir);
	if (strncmp(o->tmpname, "/proc/", 6) == 0) {
		/* a file without a name, linked in at the commit */
		free(o->tmpname);
		o->tmpname = NULL;
	} else if (!o->existed) {
		mode_t mask = umask(0);

		umask(mask);
		/* mkstemp makes 0600; give the file the mode a plain creat() would */
		if (fchmod(o->fd, 0666 & ~mask) < 0)
			return errno;
	}
	if (!o->existed)
		return 0;
	err = cli_copy_attrs(o);
	if (err && !whole) {
		/* the new file goes, the target stays: it is written in place */
		char *target = o->target;

		o->target = NULL;
		cli_outfile_abort(o);
		o->target = target;
		o->opened = 1;
		o->why[0] = '\0';
		return cli_open_in_place(o);
	}
	return err;
}

errcode_t cli_outfile_write(struct cli_outfile *o, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Copies the finished content into the file itself. */
static errcode_t cli_copy_in(struct cli_outfile *o)
{
	char buf[65536];
	off_t pos = 0;
	ssize_t n;
	errcode_t err = 0;

	while ((n = pread(o->fd, buf, sizeof(buf), pos)) > 0) {
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(o->out, buf + done, n - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return errno;
			done += w;
		}
		pos += n;
	}
	if (n < 0)
		return errno;
	if (S_ISREG(o->st.st_mode) && ftruncate(o->out, pos) < 0)
		return errno;
	/* a FIFO or a terminal has nothing to sync */
	if (fsync(o->out) < 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP)
		err = errno;
	return err;
}

/* Makes a directory entry durable, as far as the filesystem allows. */
static void cli_sync_dir(const char *path)
{
	char *dir = cli_dir_of(path);
	int fd;

	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Puts the anonymous file @o->fd in place of @o->target (or at it, when it was new). */
static errcode_t cli_link_in(struct cli_outfile *o)
{
	char proc[32], *tmp = NULL;
	errcode_t err = 0;

	cli_proc_fd(proc, sizeof(proc), o->fd);
	if (!o->existed) {
		/* never over a file that appeared since: that one was not named to us */
		if (linkat(AT_FDCWD, proc, AT_FDCWD, o->target, AT_SYMLINK_FOLLOW) < 0)
			return errno;
		return 0;
	}
	for (unsigned int i = 0; i < 100; i++) {
		free(tmp);
		if (asprintf(&tmp, "%s.e2verity-%ld-%u", o->target, (long)getpid(), i) < 0)
			return ENOMEM;
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
			break;
		err = errno;
		if (err != EEXIST)
			break;
	}
	if (!err && rename(tmp, o->target) < 0) {
		err = errno;
		unlink(tmp);
	}
	free(tmp);
	return err;
}

errcode_t cli_outfile_commit(struct cli_outfile *o)
{
	errcode_t err = 0;

	if (o->out >= 0) {
		err = cli_copy_in(o);
		if (close(o->out) < 0 && !err)
			err = errno;
		o->out = -1;
	} else {
		if (fsync(o->fd) < 0)
			err = errno;
		else if (o->tmpname && rename(o->tmpname, o->target) < 0)
			err = errno;
		else if (!o->tmpname)
			err = cli_link_in(o);
		if (!err && o->tmpname) {
			free(o->tmpname);
			o->tmpname = NULL;
		}
		if (!err)
			cli_sync_dir(o->target);
	}
	cli_outfile_abort(o);
	return err;
}

void cli_outfile_abort(struct cli_outfile *o)
{
	if (!o->opened)
		return;
	if (o->fd >= 0)
		close(o->fd);
	if (o->out >= 0)
		close(o->out);
	if (o->tmpname)
		unlink(o->tmpname);
	free(o->tmpname);
	free(o->target);
	o->tmpname = o->target = NULL;
	o->fd = o->out = -1;
	o->opened = 0;
}
