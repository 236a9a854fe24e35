#define _GNU_SOURCE
#include "file_stat.h"
#include <sys/stat.h>
#include <unistd.h>

int vs_lstat(const char *path, vs_file_stat *out) {
    struct stat st;
    if (lstat(path, &st) != 0) return -1;
    out->size = (int64_t)st.st_size;
#if defined(__APPLE__)
    out->mtime_ns = (int64_t)st.st_mtimespec.tv_sec * 1000000000LL + st.st_mtimespec.tv_nsec;
#else
    out->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
#endif
    out->inode = (uint64_t)st.st_ino;
    out->kind = S_ISREG(st.st_mode) ? 1 : S_ISDIR(st.st_mode) ? 2 : S_ISLNK(st.st_mode) ? 3 : 0;
    return 0;
}

int vs_syncfs(int fd) {
#if defined(__linux__)
    return syncfs(fd);
#else
    return fsync(fd) == 0 ? (sync(), 0) : -1;
#endif
}
