#ifndef MAPPING_GUARD_H
#define MAPPING_GUARD_H

#include <stddef.h>
#include <stdint.h>

/// A SIGBUS guard for memory-mapped files that another process may cut short.
///
/// A read (or write) of a MAP_SHARED page past the end of its file raises SIGBUS. For
/// every range registered here, the guard's handler puts a private zero-filled page in
/// place of the faulting page and lets the access go on: it reads zeros (a table sees a
/// vacant record or a failed checksum, never a trap) and writes land in this process's
/// memory. Faults outside the ranges go to the handler installed before (or the default
/// action). The handler is installed once, at the first registration.

/// Registers `length` bytes of mapping at `base`; returns the registration's number
/// (for `mapping_guard_remove` and `mapping_guard_faults`), or -1 when the table of
/// ranges is full (the range is then unguarded) or the handler could not be installed.
int mapping_guard_add(void *base, size_t length);

/// Forgets registration `number` (before the range is unmapped).
void mapping_guard_remove(int number);

/// How many pages of registration `number` were replaced by zero pages since it was
/// registered.
uint64_t mapping_guard_faults(int number);

/// Pages replaced by zero pages in this process so far, in every registration.
extern uint64_t mapping_guard_fault_count;

/// ``mapping_guard_fault_count``, loaded atomically (relaxed): one load, for hit paths.
static inline uint64_t mapping_guard_total_faults(void) {
  return __atomic_load_n(&mapping_guard_fault_count, __ATOMIC_RELAXED);
}

/// Reads the byte at `address` (a volatile load the compiler keeps): under the guard, a
/// page cut away since it was last read faults here, and the fault count moves.
static inline uint8_t mapping_guard_touch(const void *address) {
  return *(const volatile uint8_t *)address;
}

/// Asks for the cache line at `address` ahead of its use (a prefetch, which never
/// faults, even on a page cut away).
static inline void mapping_guard_prefetch(const void *address) {
  __builtin_prefetch(address);
}

#endif
