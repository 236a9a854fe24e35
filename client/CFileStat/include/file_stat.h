#ifndef VAULTSYNC_FILE_STAT_H
#define VAULTSYNC_FILE_STAT_H
#include <stdint.h>
#include <stddef.h>

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

/// One directory entry with its lstat; `error` is 0, or the errno of a failed lstat.
typedef struct {
    char name[256];
    vs_file_stat stat;
    int error;
} vs_dir_entry;

/// Lists the directory at `path` (without "." and ".."), with each entry's lstat taken relative to
/// the open directory (fstatat). On success returns 0 and a malloc'ed array in `*entries` (free it
/// with vs_free_entries); returns -1 with errno set when the directory cannot be read.
int vs_list_dir(const char *path, vs_dir_entry **entries, size_t *count);

void vs_free_entries(vs_dir_entry *entries);

/// Flushes the file system holding `fd` to disk (syncfs(2) on Linux); returns 0, or -1 with errno set.
int vs_syncfs(int fd);

#endif
