#define _GNU_SOURCE
#include "file_stat.h"
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

static void vs_fill(const struct stat *stp, vs_file_stat *out) {
    const struct stat st = *stp;
    out->size = (int64_t)st.st_size;
#if defined(__APPLE__)
    out->mtime_ns = (int64_t)st.st_mtimespec.tv_sec * 1000000000LL + st.st_mtimespec.tv_nsec;
#else
    out->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
#endif
    out->inode = (uint64_t)st.st_ino;
    out->kind = S_ISREG(st.st_mode) ? 1 : S_ISDIR(st.st_mode) ? 2 : S_ISLNK(st.st_mode) ? 3 : 0;
}

int vs_lstat(const char *path, vs_file_stat *out) {
    struct stat st;
    if (lstat(path, &st) != 0) return -1;
    vs_fill(&st, out);
    return 0;
}

int vs_list_dir(const char *path, vs_dir_entry **entries, size_t *count) {
    DIR *dir = opendir(path);
    if (!dir) return -1;
    int fd = dirfd(dir);
    size_t capacity = 64, used = 0;
    vs_dir_entry *list = malloc(capacity * sizeof(vs_dir_entry));
    if (!list) { closedir(dir); errno = ENOMEM; return -1; }
    struct dirent *entry;
    errno = 0;
    while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
        if (used == capacity) {
            capacity *= 2;
            vs_dir_entry *grown = realloc(list, capacity * sizeof(vs_dir_entry));
            if (!grown) { free(list); closedir(dir); errno = ENOMEM; return -1; }
            list = grown;
        }
        vs_dir_entry *out = &list[used++];
        strncpy(out->name, entry->d_name, sizeof(out->name) - 1);
        out->name[sizeof(out->name) - 1] = 0;
        struct stat st;
        if (fstatat(fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            vs_fill(&st, &out->stat);
            out->error = 0;
        } else {
            memset(&out->stat, 0, sizeof(out->stat));
            out->error = errno;
        }
        errno = 0;
    }
    int failed = errno;
    closedir(dir);
    if (failed) { free(list); errno = failed; return -1; }
    *entries = list;
    *count = used;
    return 0;
}

void vs_free_entries(vs_dir_entry *entries) { free(entries); }

int vs_syncfs(int fd) {
#if defined(__linux__)
    return syncfs(fd);
#else
    return fsync(fd) == 0 ? (sync(), 0) : -1;
#endif
}
