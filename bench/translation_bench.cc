// Prints the speed of the translation benchmarks' models, side by side in one run, on the mini
// corpus (`trainbench prepare translation`; --data DIR for another folder):
//   train    forward + backward + Adam on token batches of the training split: target tokens/s
//            (and source + target tokens/s), ms per step
//   decode   the first --sentences test sentences, sorted by length, in batches of
//            --eval-batch: beam search (the benchmark's beam) and greedy decoding, sentences/s
// for both models (--model transformer|gnmt|both) and each system variant of the benchmarks'
// options, side by side (a fresh model with the same seed each): fp32 or bf16 autocast
// (`precision`), torch::optim::Adam or FusedAdam (`fused_optimizer`), for GNMT torch::nn::LSTM or
// FusedLstmLayer (`fused_lstm`; variant names such as bf16-fused-lstm), plus the machine's 2048^3
// GEMM peaks (peak_flops.h) and, for the Transformer, its achieved training GFLOP/s (matrix
// products only: 6 x multiply-adds of every linear layer, attention products and the output
// projection). The peaks are measured with the BLAS library's default threads, the models with
// --blas-threads (default 1, as the benchmarks run them).
// --malloc-reuse 1 sets core::EnableMallocReuse for the whole process (compare two invocations).
// --profile 1 also prints each variant's training step operator by operator (op_profile.h); the
// profiler adds its own cost to the step times printed with it.
// Usage: translation_bench [--data DIR] [--model both] [--threads 2] [--blas-threads 1] [--steps
// 30]
//        [--variants fp32,fp32-fused,bf16,bf16-fused,fp32-lstm,...] [--malloc-reuse 0|1] [--profile
//        0|1]
//        [--batch-tokens 4096] [--sentences 256] [--eval-batch 128] [--vocab 8000]
//        [--d-model 256] [--heads 4] [--ffn 1024] [--layers 3] [--hidden 256] [--gnmt-layers 2]
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/malloc_reuse.h"
#include "core/paths.h"
#include "models/beam_search.h"
#include "models/gnmt.h"
#include "models/transformer.h"
#include "op_profile.h"
#include "peak_flops.h"
#include "text/id_corpus.h"
#include "text/token_batching.h"
#include "training/fused_adam.h"
#include "training/precision.h"
#include "training/runtime.h"

using namespace trainbench;

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

struct Args {
  std::string data, model = "both";
  int threads = 2, steps = 30, blas_threads = 1, malloc_reuse = 0, profile = 0;
  std::string variants = "fp32,fp32-fused,bf16,bf16-fused";
  int64_t batch_tokens = 4096, sentences = 256, eval_batch = 128, vocab = 8000;
  int64_t d_model = 256, heads = 4, ffn = 1024, layers = 3, hidden = 256, gnmt_layers = 2;
};

// Multiply-adds of the Transformer's matrix products for one pair (source s, target t tokens).
double TransformerMacs(const Args& a, double s, double t) {
  const double d = static_cast<double>(a.d_model), f = static_cast<double>(a.ffn),
               L = static_cast<double>(a.layers);
  const double enc = L * s * (4 * d * d + 2 * d * f + 2 * s * d);
  const double dec = L * t * (4 * d * d + 2 * d * f + 2 * t * d) +
                     L * (t * 2 * d * d + s * 2 * d * d + 2 * t * s * d);
  return enc + dec + t * d * static_cast<double>(a.vocab);
}

struct Variant {
  std::string name;  // "fp32", "bf16-fused", ...
  torch::Dtype dtype = torch::kFloat32;
  bool fused = false;
  bool fused_lstm = false;  // GNMT only: GNMTOptions::fused_lstm
  bool decode = true;  // the optimizer does not change decoding: measured for the unfused variants
};

void Bench(const std::string& model_name, torch::nn::Module& module, models::Seq2Seq& model,
           const Args& a, const text::IdCorpus& train, const text::IdCorpus& test, int64_t beam,
           double coverage, double peak, const Variant& v) {
  const std::string name = model_name + " " + v.name;
  const torch::Device cpu(torch::kCPU);
  std::vector<text::LengthPair> lengths;
  for (size_t i = 0; i < train.size(); ++i) {
    lengths.push_back({static_cast<int32_t>(train.source[i].size() + 1),
                       static_cast<int32_t>(train.target[i].size() + 1)});
  }
  text::TokenBatchingOptions bo;
  bo.max_tokens = a.batch_tokens;
  bo.seed = 1;
  const auto batches = text::MakeTokenBatches(lengths, bo, 1);
  std::optional<torch::optim::Adam> adam;
  std::optional<training::FusedAdam> fused;
  if (v.fused)
    fused.emplace(module.parameters(), training::FusedAdamOptions{1e-3});
  else
    adam.emplace(module.parameters(), torch::optim::AdamOptions(1e-3));
  module.train();
  double target_tokens = 0, all_tokens = 0, macs = 0, seconds = 0, fwd = 0, bwd = 0, opt = 0;
  const int warmup = 3;
  bench::OpProfile profile;
  for (int s = 0; s < a.steps + warmup && s < static_cast<int>(batches.size()); ++s) {
    std::vector<const std::vector<int32_t>*> src, tgt;
    double tt = 0, st = 0, m = 0;
    for (int32_t i : batches[static_cast<size_t>(s)]) {
      src.push_back(&train.source[static_cast<size_t>(i)]);
      tgt.push_back(&train.target[static_cast<size_t>(i)]);
      st += static_cast<double>(train.source[static_cast<size_t>(i)].size() + 1);
      tt += static_cast<double>(train.target[static_cast<size_t>(i)].size() + 1);
    }
    models::Seq2SeqBatch b = models::MakeSeq2SeqBatch(src, tgt);
    // Padded sizes: what the products really multiply.
    m = TransformerMacs(a, static_cast<double>(b.src.size(1)),
                        static_cast<double>(b.tgt_in.size(1))) *
        static_cast<double>(b.src.size(0));
    if (a.profile && s == warmup) profile.Start();
    auto t0 = Clock::now();
    torch::Tensor loss;
    {
      training::AutocastScope ac(cpu, v.dtype);  // as the workload: fp32 softmax and loss
      torch::Tensor logits = model.Logits(b.src, b.tgt_in);
      loss = torch::nn::functional::cross_entropy(
          logits.reshape({-1, logits.size(-1)}).to(torch::kFloat), b.tgt_out.reshape({-1}),
          torch::nn::functional::CrossEntropyFuncOptions()
              .ignore_index(models::kPadId)
              .label_smoothing(0.1));
    }
    const double t_fwd = Seconds(t0);
    if (fused)
      fused->ZeroGrad();
    else
      adam->zero_grad();
    loss.backward();
    const double t_bwd = Seconds(t0) - t_fwd;
    if (fused)
      fused->Step();
    else
      adam->step();
    const double dt = Seconds(t0);
    if (s >= warmup) {
      fwd += t_fwd;
      bwd += t_bwd;
      opt += dt - t_fwd - t_bwd;
      seconds += dt;
      target_tokens += tt;
      all_tokens += tt + st;
      macs += m;
    }
  }
  const int measured = std::max(1, std::min(a.steps, static_cast<int>(batches.size()) - warmup));
  profile.Stop(name + " training step", measured);
  std::printf(
      "%-22s train: %.0f target tokens/s (%.0f source+target), %.1f ms/step over %d steps of <= "
      "%lld tokens",
      name.c_str(), target_tokens / seconds, all_tokens / seconds, 1e3 * seconds / measured,
      measured, static_cast<long long>(a.batch_tokens));
  if (model_name == "transformer") {
    const double gflops = 6 * macs / seconds / 1e9;
    std::printf(", %.1f GFLOP/s = %.0f%% of the %s peak", gflops, 100 * gflops / peak,
                v.dtype == torch::kBFloat16 ? "bf16" : "fp32");
  }
  std::printf("\n%-22s train step parts: forward + loss %.1f ms, backward %.1f ms, Adam %.1f ms\n",
              name.c_str(), 1e3 * fwd / measured, 1e3 * bwd / measured, 1e3 * opt / measured);

  if (!v.decode) return;
  module.eval();
  torch::NoGradGuard no_grad;
  training::AutocastScope ac(cpu, v.dtype);
  std::vector<int32_t> order;
  for (int64_t i = 0; i < std::min<int64_t>(a.sentences, static_cast<int64_t>(test.size())); ++i)
    order.push_back(static_cast<int32_t>(i));
  std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) {
    return test.source[static_cast<size_t>(x)].size() < test.source[static_cast<size_t>(y)].size();
  });
  for (int64_t k : {beam, int64_t{0}}) {
    models::BeamSearchOptions o;
    o.beam = std::max<int64_t>(1, k);
    o.coverage_beta = k > 0 ? coverage : 0.0;
    int64_t out_tokens = 0;
    auto t0 = Clock::now();
    for (size_t start = 0; start < order.size(); start += static_cast<size_t>(a.eval_batch)) {
      std::vector<const std::vector<int32_t>*> src;
      for (size_t i = start; i < std::min(order.size(), start + static_cast<size_t>(a.eval_batch));
           ++i)
        src.push_back(&test.source[static_cast<size_t>(order[i])]);
      torch::Tensor s = models::MakeSourceBatch(src);
      auto hyps = k > 0 ? models::BeamSearch(model, s, o) : models::GreedyDecode(model, s, o);
      for (const auto& h : hyps) out_tokens += static_cast<int64_t>(h.size());
    }
    const double dt = Seconds(t0);
    std::printf(
        "%-22s decode (%s): %.1f sentences/s, %.2f s for %zu sentences, %.1f output pieces per "
        "sentence\n",
        name.c_str(), k > 0 ? ("beam " + std::to_string(k)).c_str() : "greedy",
        static_cast<double>(order.size()) / dt, dt, order.size(),
        static_cast<double>(out_tokens) / static_cast<double>(order.size()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  a.data = core::ExpandDataPath("{user_data}/datasets/translation_mini");
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--data")
      a.data = v;
    else if (k == "--model")
      a.model = v;
    else if (k == "--threads")
      a.threads = std::stoi(v);
    else if (k == "--blas-threads")
      a.blas_threads = std::stoi(v);
    else if (k == "--steps")
      a.steps = std::stoi(v);
    else if (k == "--batch-tokens")
      a.batch_tokens = std::stoll(v);
    else if (k == "--sentences")
      a.sentences = std::stoll(v);
    else if (k == "--eval-batch")
      a.eval_batch = std::stoll(v);
    else if (k == "--vocab")
      a.vocab = std::stoll(v);
    else if (k == "--d-model")
      a.d_model = std::stoll(v);
    else if (k == "--heads")
      a.heads = std::stoll(v);
    else if (k == "--ffn")
      a.ffn = std::stoll(v);
    else if (k == "--layers")
      a.layers = std::stoll(v);
    else if (k == "--hidden")
      a.hidden = std::stoll(v);
    else if (k == "--gnmt-layers")
      a.gnmt_layers = std::stoll(v);
    else if (k == "--variants")
      a.variants = v;
    else if (k == "--malloc-reuse")
      a.malloc_reuse = std::stoi(v);
    else if (k == "--profile")
      a.profile = std::stoi(v);
    else {
      std::fprintf(stderr, "translation_bench: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::vector<Variant> variants;
  for (size_t p = 0; p <= a.variants.size();) {
    const size_t q = std::min(a.variants.find(',', p), a.variants.size());
    const std::string n = a.variants.substr(p, q - p);
    p = q + 1;
    if (n.empty()) continue;
    Variant v;
    v.name = n;
    // dtype, then optional parts: -fused (FusedAdam), -lstm (GNMT's fused LSTM layers).
    bool ok = true;
    size_t part = 0;
    for (size_t r = 0; r <= n.size();) {
      const size_t e = std::min(n.find('-', r), n.size());
      const std::string w = n.substr(r, e - r);
      r = e + 1;
      if (part++ == 0) {
        if (w == "bf16")
          v.dtype = torch::kBFloat16;
        else
          ok = ok && w == "fp32";
      } else if (w == "fused") {
        v.fused = true;
      } else if (w == "lstm") {
        v.fused_lstm = true;
      } else {
        ok = false;
      }
    }
    if (!ok) {
      std::fprintf(stderr,
                   "translation_bench: --variants: unknown variant %s (fp32|bf16, then optionally "
                   "-fused, -lstm)\n",
                   n.c_str());
      return 2;
    }
    v.decode = !v.fused;
    variants.push_back(v);
  }
  if (a.malloc_reuse && !core::EnableMallocReuse())
    std::printf("no glibc mallopt: --malloc-reuse ignored\n");
  at::set_num_threads(a.threads);
  torch::manual_seed(1);
  const double fp32 = bench::MeasureGemmGflops(torch::kFloat);
  const double bf16 = bench::MeasureGemmGflops(torch::kBFloat16);
  if (a.blas_threads > 0) training::SetBlasThreads(a.blas_threads);
  text::IdCorpus train, test;
  try {
    train = text::ReadIdCorpus(a.data + "/train.ids", static_cast<int>(a.vocab));
    test = text::ReadIdCorpus(a.data + "/test.ids", static_cast<int>(a.vocab));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "translation_bench: %s (run `trainbench prepare translation` first)\n",
                 e.what());
    return 2;
  }
  std::printf(
      "peak: 2048^3 GEMM %.1f GFLOP/s fp32, %.1f GFLOP/s bf16 (%d threads); %zu training pairs, "
      "vocabulary %lld; "
      "model runs with %d intra-op and %d BLAS threads (0: the library's default), malloc_reuse "
      "%d\n",
      fp32, bf16, a.threads, train.size(), static_cast<long long>(a.vocab), a.threads,
      a.blas_threads, core::MallocReuseEnabled() ? 1 : 0);
  if (a.model == "transformer" || a.model == "both") {
    std::printf("transformer: d_model %lld, %lld heads, ffn %lld, %lld + %lld layers\n",
                static_cast<long long>(a.d_model), static_cast<long long>(a.heads),
                static_cast<long long>(a.ffn), static_cast<long long>(a.layers),
                static_cast<long long>(a.layers));
    for (const Variant& v : variants) {
      if (v.fused_lstm) continue;  // a GNMT option
      torch::manual_seed(1);
      models::Transformer t(models::TransformerOptions(a.vocab)
                                .d_model(a.d_model)
                                .heads(a.heads)
                                .ffn_dim(a.ffn)
                                .encoder_layers(a.layers)
                                .decoder_layers(a.layers));
      Bench("transformer", *t, *t, a, train, test, 4, 0.0,
            v.dtype == torch::kBFloat16 ? bf16 : fp32, v);
    }
  }
  if (a.model == "gnmt" || a.model == "both") {
    std::printf("gnmt: hidden %lld, %lld + %lld layers\n", static_cast<long long>(a.hidden),
                static_cast<long long>(a.gnmt_layers), static_cast<long long>(a.gnmt_layers));
    for (const Variant& v : variants) {
      torch::manual_seed(1);
      models::GNMT g(models::GNMTOptions(a.vocab)
                         .hidden_size(a.hidden)
                         .num_layers(a.gnmt_layers)
                         .fused_lstm(v.fused_lstm));
      Bench("gnmt", *g, *g, a, train, test, 5, 0.1, fp32, v);
    }
  }
  return 0;
}
