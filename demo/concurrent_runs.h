// RunConcurrently: the demo's runs side by side. Each run of `idem demo` has
// its own folder, store, topic or queue and consumer group, and on a real
// broker it mostly waits (rebalances, retry delays in real time), so running
// them at once shortens the demo to its longest run without changing any run.
#pragma once

#include <cstddef>
#include <functional>

namespace idem::demo {

// Calls task(i) for every i in [0, count), on at most `jobs` threads at once
// (jobs <= 1: one after another on the calling thread), starting them in
// index order. Once a task has thrown, no further task starts; after the
// started ones have returned, the exception of the lowest index is rethrown,
// so a failure reads the same whatever the timing.
void RunConcurrently(size_t count, size_t jobs, const std::function<void(size_t)>& task);

}  // namespace idem::demo
