// How an entry's bytes reach its table slot, measured alone: the kernel's share of
// writing the slots of a render (the avatar family's 64, 128 and 256 pixel bgra32
// entries: 16, 64 and 256 KiB) into files grown as ImageTable grows them
// (posix_fallocate, 16 slots at a time) and mapped MAP_SHARED as ImageTable maps them.
//
//   mode 0: draw into the mapping, then MADV_DONTNEED (ImageTable before: one shared
//           write fault per page, each page zeroed before it is drawn)
//   mode 1: as 0, with MADV_POPULATE_WRITE of the slot first (Linux 5.14+)
//   mode 2: draw into a reused buffer, then one pwrite into the slot (ImageTable now)
//
//   cc -O2 -o /tmp/slot-writes Benchmarks/slot-writes.c
//   for round in 1 2 3 4 5; do for mode in 0 1 2; do /tmp/slot-writes $mode 240 /tmp; done; done
//
// Prints CPU seconds (user + system, getrusage) and minor faults per mode; take the
// medians of interleaved rounds. A benchmark: it asserts nothing.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double cpu_seconds(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
         usage.ru_stime.tv_usec / 1e6;
}

static long minor_faults(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Stands for the rasterizer's store and the checksum's read of an entry.
static unsigned long draw_and_sum(char *bytes, size_t count) {
  for (size_t k = 0; k < count; k += 4) *(unsigned *)(bytes + k) = (unsigned)(k * 2654435761u);
  unsigned long sum = 0;
  for (size_t k = 0; k < count; k += 8) sum += *(unsigned long *)(bytes + k);
  return sum;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s MODE PHOTOS FOLDER\n", argv[0]);
    return 2;
  }
  int mode = atoi(argv[1]), photos = atoi(argv[2]);
  const size_t sizes[3] = {16384, 65536, 262144}, header = 4096, reserve = 1000 * 262144UL;
  int descriptors[3];
  char *bases[3];
  size_t lengths[3] = {0, 0, 0};
  char path[4096];
  for (int f = 0; f < 3; f++) {
    snprintf(path, sizeof path, "%s/slot-writes-%d.table", argv[3], f);
    unlink(path);
    descriptors[f] = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
    if (descriptors[f] < 0) return perror(path), 1;
    bases[f] = mmap(NULL, reserve, PROT_READ | PROT_WRITE, MAP_SHARED, descriptors[f], 0);
    if (bases[f] == MAP_FAILED) return perror("mmap"), 1;
  }
  char *buffer = aligned_alloc(4096, sizes[2]);
  memset(buffer, 1, sizes[2]);
  unsigned long sums = 0;
  double start = cpu_seconds();
  long faults = minor_faults();
  for (int photo = 0; photo < photos; photo++) {
    for (int f = 0; f < 3; f++) {
      size_t size = sizes[f], offset = header + (size_t)photo * size;
      if (offset + size > lengths[f]) {
        size_t grown = header + (size_t)(photo + 16) * size;
        if (posix_fallocate(descriptors[f], lengths[f], grown - lengths[f]) != 0) return 1;
        lengths[f] = grown;
      }
      char *slot = bases[f] + offset;
      if (mode == 2) {
        sums += draw_and_sum(buffer, size);
        if (pwrite(descriptors[f], buffer, size, offset) != (ssize_t)size) return perror("pwrite"), 1;
      } else {
        if (mode == 1) madvise(slot, size, MADV_POPULATE_WRITE);
        sums += draw_and_sum(slot, size);
        madvise(slot, size, MADV_DONTNEED);
      }
    }
  }
  printf("mode %d: %d photos, %.4f s CPU, %ld minor faults (sum %lu)\n", mode, photos,
         cpu_seconds() - start, minor_faults() - faults, sums & 1);
  for (int f = 0; f < 3; f++) {
    snprintf(path, sizeof path, "%s/slot-writes-%d.table", argv[3], f);
    unlink(path);
  }
  return 0;
}
