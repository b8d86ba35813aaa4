// Keeping freed memory in the process for the next allocation of the same size.
//
// glibc's malloc serves a block of 32 MB or more (and, until its dynamic threshold has grown,
// anything over 128 KB) with a fresh mmap, and returns the top of the heap to the kernel when
// more than twice that threshold is free there. A tensor library allocates and frees the same
// large activation buffers every step, so each step maps and zeroes them again, page by page:
// on the 2-core VMs trainbench is calibrated on, the mini ResNet's evaluation forward (batch
// 1000, 50 MB activations) ran 12x slower that way than from reused memory, and its training
// step 3-4x (docs/performance.md, "malloc_reuse").
//
// EnableMallocReuse() turns both off for the rest of the process (mallopt M_MMAP_MAX = 0 and
// M_TRIM_THRESHOLD = -1, i.e. never trim): large blocks come from the heap and stay in the
// process once freed. The cost is memory: the process keeps its peak heap. Threads other than
// the main one allocate from their own arenas, which still mmap a block larger than an arena
// (64 MB); everything else is reused.
#pragma once

namespace trainbench::core {

// Returns false, changing nothing, where the C library is not glibc (no mallopt) or refuses.
bool EnableMallocReuse();
// Whether EnableMallocReuse() has succeeded in this process.
bool MallocReuseEnabled();

// A milder setting (instance_segmentation's reference, as calibrated, when malloc_reuse is off):
// blocks below 32 MB come from the heap, and the heap top is trimmed only above 1 GB free.
// Does nothing once EnableMallocReuse() has succeeded (it would undo its never-trim). Returns
// false where there is no glibc mallopt.
bool RaiseMmapThreshold();

}  // namespace trainbench::core
