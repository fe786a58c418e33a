#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt's FuzzerDriver.cpp): runs the fuzzing
/// loop with `callback` as the target, parsing libFuzzer's flags from argv.
/// Linked from libclang_rt.fuzzer by .ci/fuzz; declared here so that the
/// runner's own `main` can hand over to it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
