#ifndef VAULTSYNC_ALLOCATOR_H
#define VAULTSYNC_ALLOCATOR_H

/// With glibc: two malloc arenas at most, and freed memory above 128 KiB at the heap's top handed
/// back to the system. Elsewhere nothing. Call first thing: arenas are made as threads first allocate.
void vs_allocator_keep_little(void);

#endif
