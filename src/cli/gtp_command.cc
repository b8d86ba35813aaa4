// `trainbench gtp`: trainbench's Go player as a GTP engine on stdin/stdout, so any GTP tool
// (GoGui, gnugo's twogtp, sabaki, a referee script) can play it. The mcts player searches with
// the MiniGo network (untrained unless --weights names saved parameters); the random player
// plays uniformly among moves that do not fill its own eyes. Diagnostics go to stderr only.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <iostream>

#include "cli/commands.h"
#include "core/error.h"
#include "go/gtp.h"
#include "go/match.h"
#include "go/mcts.h"
#include "models/go_net.h"
#include "workloads/go_evaluator.h"

namespace trainbench::cli {

int RunGtp(const GtpOptions& o) {
  if (o.size < 2 || o.size > go::kMaxSize) throw core::Error("--size must be within 2..19");
  if (o.readouts < 1) throw core::Error("--readouts must be >= 1");
  at::set_num_threads(std::max(1, o.threads));
  torch::manual_seed(static_cast<uint64_t>(o.seed));
  go::MoveGenerator generate;
  std::unique_ptr<workloads::GoNetEvaluator> evaluator;
  std::unique_ptr<go::Mcts> mcts;
  go::RandomPlayer random(static_cast<uint64_t>(o.seed));
  if (o.player == "random") {
    generate = [&random](const go::Game& g, go::Color c) { return random(g, c); };
  } else if (o.player == "mcts") {
    models::GoNet net(
        models::GoNetOptions().board_size(o.size).filters(o.filters).blocks(o.blocks).value_fc(
            o.value_fc));
    if (!o.weights.empty()) {
      try {
        torch::load(net, o.weights);
      } catch (const std::exception& e) {
        throw core::FileError(o.weights, 0, std::string("cannot load the network: ") + e.what());
      }
    }
    evaluator = std::make_unique<workloads::GoNetEvaluator>(net, torch::kCPU);
    go::MctsOptions mo;
    mo.readouts = o.readouts;
    mo.seed = static_cast<uint64_t>(o.seed);
    mcts = std::make_unique<go::Mcts>(*evaluator, mo);
    generate = [&mcts](const go::Game& g, go::Color c) {
      go::Position p = go::Position::Of(g);
      p.to_play = c;
      return mcts->Search(p).move;
    };
  } else {
    throw core::Error("--player \"" + o.player + "\": expected mcts or random");
  }
  go::GtpEngine engine("trainbench", "0.1.0", generate, o.size, o.komi);
  if (o.player == "mcts") engine.set_fixed_size(o.size);  // the network is sized for --size
  engine.Serve(std::cin, std::cout);
  return kExitOk;
}

}  // namespace trainbench::cli
