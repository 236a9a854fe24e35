#ifndef VAULTSYNC_FILE_STAT_H
#define VAULTSYNC_FILE_STAT_H
#include <stdint.h>

/// What the scanner needs of a file, from one lstat(2) call.
typedef struct {
    int64_t size;
    int64_t mtime_ns;
    uint64_t inode;
    /// 1 regular file, 2 directory, 3 symbolic link, 0 anything else.
    int kind;
} vs_file_stat;

/// lstat(2) into `out`; returns 0, or -1 with errno set.
int vs_lstat(const char *path, vs_file_stat *out);

/// Flushes the file system holding `fd` to disk (syncfs(2) on Linux); returns 0, or -1 with errno set.
int vs_syncfs(int fd);

#endif
