#define _GNU_SOURCE
#include "MappingGuard.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { capacity = 4096 };

// One registration per slot: `end` is written last on add and cleared first on remove,
// so a handler that sees a non-zero `end` sees the matching `start`.
static _Atomic(uintptr_t) starts[capacity];
static _Atomic(uintptr_t) ends[capacity];
static _Atomic(uint64_t) faults[capacity];
static _Atomic(int) used[capacity];

uint64_t mapping_guard_fault_count;

static struct sigaction previous;
static _Atomic(int) installed;
static _Atomic(int) installing;

static void handle(int signal, siginfo_t *info, void *context) {
  uintptr_t address = (uintptr_t)info->si_addr;
  for (int i = 0; i < capacity; i++) {
    uintptr_t end = atomic_load(&ends[i]);
    if (end == 0 || address >= end) continue;
    uintptr_t start = atomic_load(&starts[i]);
    if (address < start) continue;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *faulting = (void *)(address & ~(page - 1));
    // mmap is a plain system call on Linux (safe in a handler in practice).
    void *zero = mmap(faulting, page, PROT_READ | PROT_WRITE,
                      MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (zero == faulting) {
      atomic_fetch_add(&faults[i], 1);
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
      atomic_store(&faults[i], 0);
      atomic_store(&starts[i], (uintptr_t)base);
      atomic_store(&ends[i], (uintptr_t)base + length);
      return i;
    }
  }
  return -1;
}

void mapping_guard_remove(int number) {
  if (number < 0 || number >= capacity) return;
  atomic_store(&ends[number], 0);
  atomic_store(&starts[number], 0);
  atomic_store(&used[number], 0);
}

uint64_t mapping_guard_faults(int number) {
  if (number < 0 || number >= capacity) return 0;
  return atomic_load(&faults[number]);
}
