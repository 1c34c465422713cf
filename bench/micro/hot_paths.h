// The hot-path micro-benchmarks, registered explicitly (not by static
// initialisers) so both the stand-alone idem_micro_bench and `idem bench` can
// run them from a library.
#pragma once

namespace idem {

// Registers BM_DeriveIdentity, BM_Fingerprint, BM_InBatchDedup and BM_ClaimBatch
// with Google Benchmark. Call once, before benchmark::RunSpecifiedBenchmarks.
void RegisterHotPathBenchmarks();

}  // namespace idem
