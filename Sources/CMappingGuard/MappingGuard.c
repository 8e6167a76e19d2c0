#define _GNU_SOURCE
#include "MappingGuard.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { capacity = 4096 };

// One registration per slot: `end` is written last on add and cleared first on remove,
// so a handler that sees a non-zero `end` sees the matching `start`.
static uintptr_t starts[capacity];
static uintptr_t ends[capacity];
static uint64_t faults[capacity];
static _Atomic(int) used[capacity];
static long pageSize;

uint64_t mapping_guard_fault_count;

static struct sigaction previous;
static _Atomic(int) installed;
static _Atomic(int) installing;

// Not instrumented by any sanitizer: the fault may come from inside ThreadSanitizer's
// own atomic operation (a pin word of a cut shared file), which holds a lock that an
// instrumented load here would wait for forever. Plain volatile loads and a raw mmap
// system call, which no sanitizer intercepts.
#if defined(__has_attribute)
#if __has_attribute(disable_sanitizer_instrumentation)
__attribute__((disable_sanitizer_instrumentation))
#endif
#endif
static void handle(int signal, siginfo_t *info, void *context) {
  uintptr_t address = (uintptr_t)info->si_addr;
  for (int i = 0; i < capacity; i++) {
    uintptr_t end = *(volatile uintptr_t *)&ends[i];
    if (end == 0 || address >= end) continue;
    uintptr_t start = *(volatile uintptr_t *)&starts[i];
    if (address < start) continue;
    uintptr_t page = (uintptr_t)pageSize;
    uintptr_t faulting = address & ~(page - 1);
    long zero = syscall(SYS_mmap, faulting, page, PROT_READ | PROT_WRITE,
                        MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if ((uintptr_t)zero == faulting) {
      __atomic_fetch_add(&faults[i], 1, __ATOMIC_RELAXED);
      __atomic_fetch_add(&mapping_guard_fault_count, 1, __ATOMIC_RELAXED);
      return;  // the access is retried, on the zero page
    }
    break;
  }
  // Not ours (or the page could not be replaced): what would have happened without us.
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) {
      previous.sa_sigaction(signal, info, context);
      return;
    }
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
    return;
  }
  // The default action: the fault recurs when the handler returns, and ends the process.
  struct sigaction fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(SIGBUS, &fallback, NULL);
}

static int install(void) {
  if (atomic_load(&installed)) return 1;
  int expected = 0;
  if (!atomic_compare_exchange_strong(&installing, &expected, 1)) {
    while (!atomic_load(&installed)) usleep(100);
    return 1;
  }
  pageSize = sysconf(_SC_PAGESIZE);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = handle;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGBUS, &action, &previous) != 0) {
    atomic_store(&installing, 0);
    return 0;
  }
  atomic_store(&installed, 1);
  return 1;
}

int mapping_guard_add(void *base, size_t length) {
  if (!install()) return -1;
  for (int i = 0; i < capacity; i++) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&used[i], &expected, 1)) {
      __atomic_store_n(&faults[i], 0, __ATOMIC_SEQ_CST);
      __atomic_store_n(&starts[i], (uintptr_t)base, __ATOMIC_SEQ_CST);
      __atomic_store_n(&ends[i], (uintptr_t)base + length, __ATOMIC_SEQ_CST);
      return i;
    }
  }
  return -1;
}

void mapping_guard_remove(int number) {
  if (number < 0 || number >= capacity) return;
  __atomic_store_n(&ends[number], 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&starts[number], 0, __ATOMIC_SEQ_CST);
  atomic_store(&used[number], 0);
}

uint64_t mapping_guard_faults(int number) {
  if (number < 0 || number >= capacity) return 0;
  return __atomic_load_n(&faults[number], __ATOMIC_RELAXED);
}
