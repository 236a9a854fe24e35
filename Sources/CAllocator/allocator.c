#include "allocator.h"
#if __has_include(<malloc.h>)
#include <malloc.h>  /* glibc's defines __GLIBC__, tested below */
#endif

void vs_allocator_keep_little(void) {
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, 2);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#endif
}
