// Micro-benchmarks of the hot paths (Google Benchmark): key derivation, payload
// fingerprint, in-batch dedup, and binding the claim statement for a batch.
// They measure; nothing here asserts a speed.
#include "micro/hot_paths.h"

#include <benchmark/benchmark.h>

#include "core/batch_dedup.h"
#include "core/key.h"
#include "idem/store.h"

namespace idem {
namespace {

HandlerSpec PaySpec() {
  HandlerSpec s;
  s.topic = "pay-success";
  s.key.fields = {"payment_id", "scene"};
  return s;
}

Message PayMessage(int i) {
  Message m;
  m.topic = "pay-success";
  m.id = "m" + std::to_string(i);
  m.payload = "{\"payment_id\":\"P" + std::to_string(i) +
              "\",\"scene\":\"ORDER\",\"user_id\":\"U42\",\"order_no\":\"O" + std::to_string(i) +
              "\",\"amount_cents\":19900,\"currency\":\"CNY\",\"merchant\":\"M-1001\"}";
  return m;
}

void BM_DeriveIdentity(benchmark::State& state) {
  const HandlerSpec spec = PaySpec();
  const Message m = PayMessage(7);
  for (auto _ : state) benchmark::DoNotOptimize(DeriveIdentity(m, spec));
}

void BM_Fingerprint(benchmark::State& state) {
  const std::string bytes(static_cast<size_t>(state.range(0)), 'x');
  for (auto _ : state) benchmark::DoNotOptimize(Fingerprint(bytes));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_InBatchDedup(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<Message> msgs;
  for (int i = 0; i < n; ++i) msgs.push_back(PayMessage(i % (n * 7 / 10 + 1)));  // ~30 % copies
  const HandlerSpec spec = PaySpec();
  std::vector<BatchItem> proto(n);
  for (int i = 0; i < n; ++i) {
    proto[i].msg = &msgs[i];
    proto[i].spec = &spec;  // planned to run
    auto id = DeriveIdentity(msgs[i], PaySpec());
    proto[i].key = id->key;
    proto[i].fingerprint = id->fingerprint;
  }
  for (auto _ : state) {
    std::vector<BatchItem> items = proto;
    MarkInBatchCopies(items);
    benchmark::DoNotOptimize(items.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_ClaimBatch(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto store = OpenSqliteStore(":memory:", SqliteStoreOptions{}, Env::Default());
  std::vector<ClaimRequest> reqs;
  for (int i = 0; i < n; ++i) reqs.push_back({"pay-success:P" + std::to_string(i) + ":ORDER", std::string(32, 'f'), "m"});
  for (auto _ : state) {
    auto tx = (*store)->Begin();
    benchmark::DoNotOptimize((*tx)->Claim("payments", reqs, 1, 2));
    (*tx)->Rollback();  // keep the table empty: this measures lookup + insert binding
  }
  state.SetItemsProcessed(state.iterations() * n);
}

}  // namespace

void RegisterHotPathBenchmarks() {
  benchmark::RegisterBenchmark("BM_DeriveIdentity", BM_DeriveIdentity);
  benchmark::RegisterBenchmark("BM_Fingerprint", BM_Fingerprint)->Arg(200)->Arg(4096);
  benchmark::RegisterBenchmark("BM_InBatchDedup", BM_InBatchDedup)->Arg(100)->Arg(1000);
  benchmark::RegisterBenchmark("BM_ClaimBatch", BM_ClaimBatch)->Arg(1)->Arg(100)->Arg(1000);
}

}  // namespace idem
