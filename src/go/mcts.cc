#include "go/mcts.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace trainbench::go {

Position Position::Of(const Game& g) {
  Position p;
  p.board = g.initial();
  p.to_play = g.moves().empty() ? g.to_play() : g.moves()[0].color;
  p.komi = g.komi();
  for (const Move& m : g.moves()) {
    p.to_play = m.color;  // GTP allows out-of-turn plays
    p.Play(m.point);
  }
  p.to_play = g.to_play();
  p.passes = g.consecutive_passes();
  p.move_number = static_cast<int>(g.moves().size());
  return p;
}

void Position::Play(int point) {
  for (int k = kHistory - 2; k > 0; --k) past[k] = past[k - 1];
  past[0] = board.colors();
  past_count = std::min(past_count + 1, kHistory - 1);
  Advance(point);
}

void Position::AssignPlayed(const Position& from, int point) {
  past_count = std::min(from.past_count + 1, kHistory - 1);
  const size_t used = static_cast<size_t>(from.board.UsedPoints());
  for (int k = past_count - 1; k > 0; --k)
    std::copy_n(from.past[k - 1].begin(), used, past[k].begin());
  std::copy_n(from.board.colors().begin(), used, past[0].begin());
  board.AssignUsed(from.board);
  to_play = from.to_play;
  passes = from.passes;
  move_number = from.move_number;
  komi = from.komi;
  Advance(point);
}

void Position::Advance(int point) {
  const bool legal = board.Play(to_play, point);
  TB_CHECK(legal, "Position::Play: illegal move");
  passes = point == kPass ? passes + 1 : 0;
  to_play = Opponent(to_play);
  ++move_number;
}

struct Mcts::Node {
  Position pos;
  Node* parent = nullptr;
  bool expanded = false;
  bool pending = false;
  float value = 0;  // the network's value for the player to move here (set on expansion)
  // Statistics of the edge parent -> this node, from the view of the parent's player to move.
  float n = 0, w = 0;
  std::vector<int> moves;    // legal move indices (point order, pass last)
  std::vector<float> prior;  // per entry of `moves`
  std::vector<Node*>
      children;  // per entry of `moves`, created when selected (Mcts::nodes_ owns them)
};

Mcts::Node* Mcts::NewNode() {
  if (used_ == nodes_.size()) nodes_.push_back(std::make_unique<Node>());
  Node* n = nodes_[used_++].get();
  if (o_.node_pool) {  // a node of an earlier search: its vectors keep their capacity
    n->parent = nullptr;
    n->expanded = n->pending = false;
    n->value = n->n = n->w = 0;
    n->moves.clear();
    n->prior.clear();
    n->children.clear();
  }
  return n;
}

Mcts::Mcts(Evaluator& evaluator, MctsOptions options)
    : evaluator_(&evaluator), o_(options), rng_(options.seed) {}
Mcts::Mcts(MctsOptions options) : o_(options), rng_(options.seed) {}
Mcts::~Mcts() = default;

namespace {

// Exact value of a finished game for the player to move.
float TerminalValue(const Position& p) {
  double s = p.board.Score(p.komi);
  float black = s > 0 ? 1.0f : s < 0 ? -1.0f : 0.0f;
  return p.to_play == kBlack ? black : -black;
}

}  // namespace

void Mcts::Expand(Node* n, const Evaluation& e) {
  const int size = n->pos.board.size();
  TB_CHECK(static_cast<int>(e.priors.size()) == size * size + 1,
           "Evaluator: wrong number of priors");
  n->moves.clear();
  if (o_.node_pool) {  // LegalMoves without its vector
    const Board& b = n->pos.board;
    for (int r = 0; r < size; ++r) {
      for (int col = 0; col < size; ++col) {
        if (b.IsLegal(n->pos.to_play, Board::Index(r, col))) n->moves.push_back(r * size + col);
      }
    }
  } else {
    for (int p : n->pos.board.LegalMoves(n->pos.to_play))
      n->moves.push_back(Position::MoveIndex(p, size));
  }
  n->moves.push_back(size * size);  // pass is always legal
  n->prior.resize(n->moves.size());
  float sum = 0;
  for (size_t k = 0; k < n->moves.size(); ++k) {
    n->prior[k] = std::max(0.0f, e.priors[n->moves[k]]);
    sum += n->prior[k];
  }
  for (auto& p : n->prior) p = sum > 0 ? p / sum : 1.0f / n->moves.size();
  n->children.assign(n->moves.size(), nullptr);
  n->value = e.value;
  n->expanded = true;
}

Mcts::Node* Mcts::Select(Node* root, std::vector<Node*>* path) {
  path->clear();
  Node* n = root;
  path->push_back(n);
  // Early in the game the pass (always the last entry) is left out, unless it is the only move.
  const bool no_pass = root->pos.move_number < o_.pass_allowed_from_move;
  while (n->expanded && !n->pos.over()) {
    const float sqrt_n = std::sqrt(std::max(1.0f, n->n));
    const float unvisited_q = o_.unvisited_q_is_parent_value ? n->value : 0.0f;
    const size_t count = no_pass && n->moves.size() > 1 ? n->moves.size() - 1 : n->moves.size();
    size_t best = 0;
    float best_score = -1e30f;
    for (size_t k = 0; k < count; ++k) {
      const Node* c = n->children[k];
      const float cn = c ? c->n : 0.0f;
      const float q = cn > 0 ? c->w / cn : unvisited_q;
      const float score = q + o_.c_puct * n->prior[k] * sqrt_n / (1.0f + cn);
      if (score > best_score) {
        best_score = score;
        best = k;
      }
    }
    if (!n->children[best]) {
      Node* c = NewNode();
      const int point = Position::MovePoint(n->moves[best], n->pos.board.size());
      if (o_.node_pool) {
        c->pos.AssignPlayed(n->pos, point);
      } else {
        c->pos = n->pos;
        c->pos.Play(point);
      }
      c->parent = n;
      n->children[best] = c;
    }
    n = n->children[best];
    path->push_back(n);
  }
  return n;
}

void Mcts::Backup(const std::vector<Node*>& path, float value) {
  // `value` is for the player to move at the leaf; the leaf's edge belongs to the player
  // before it, so the sign flips first.
  float v = -value;
  for (size_t i = path.size(); i-- > 0;) {
    path[i]->n += 1;
    path[i]->w += v;
    v = -v;
  }
}

SearchResult Mcts::Search(const Position& root) {
  TB_CHECK(evaluator_ != nullptr, "Mcts::Search without an Evaluator");
  Begin(root);
  std::vector<Evaluation> evals;
  while (!Pending().empty()) {
    evaluator_->Evaluate(Pending(), &evals);
    Provide(evals.data(), evals.size());
  }
  return Finish();
}

void Mcts::Begin(const Position& root_pos) {
  TB_CHECK(!root_pos.over(), "Search on a finished game");
  used_ = 0;
  if (!o_.node_pool) nodes_.clear();
  root_ = NewNode();
  root_->pos = root_pos;
  root_pending_ = true;
  done_ = 0;
  evaluator_calls_ = 0;
  leaves_.clear();
  paths_.clear();
  positions_.assign(1, &root_->pos);
}

void Mcts::Provide(const Evaluation* evals, size_t count) {
  TB_CHECK(root_ != nullptr && !positions_.empty(), "Mcts::Provide with no evaluation pending");
  TB_CHECK(count == positions_.size(), "Evaluator: wrong number of evaluations");
  ++evaluator_calls_;
  Node& root = *root_;
  if (root_pending_) {
    root_pending_ = false;
    Expand(&root, evals[0]);
    root.n = 1;
    root.w = -evals[0].value;
    if (o_.root_noise) {
      std::gamma_distribution<float> gamma(o_.dirichlet_alpha, 1.0f);
      std::vector<float> noise(root.prior.size());
      float sum = 0;
      for (auto& x : noise) sum += (x = gamma(rng_));
      for (size_t k = 0; k < root.prior.size(); ++k) {
        float eta = sum > 0 ? noise[k] / sum : 1.0f / noise.size();
        root.prior[k] = (1 - o_.noise_fraction) * root.prior[k] + o_.noise_fraction * eta;
      }
    }
  } else {
    for (size_t k = 0; k < leaves_.size(); ++k) {
      for (size_t i = 1; i < paths_[k].size(); ++i) {
        paths_[k][i]->n -= o_.virtual_loss;
        paths_[k][i]->w += o_.virtual_loss;
      }
      leaves_[k]->pending = false;
      Expand(leaves_[k], evals[k]);
      Backup(paths_[k], evals[k].value);
      ++done_;
    }
  }
  SelectLeaves();
}

void Mcts::SelectLeaves() {
  leaves_.clear();
  paths_.clear();
  positions_.clear();
  while (done_ < o_.readouts) {
    int collisions = 0;
    const int want = std::min(o_.batch, o_.readouts - done_);
    while (static_cast<int>(leaves_.size()) < want && collisions < want) {
      Node* leaf = Select(root_, &path_);
      if (leaf->pos.over()) {
        Backup(path_, TerminalValue(leaf->pos));
        ++done_;
        if (done_ >= o_.readouts) break;
        continue;
      }
      if (leaf->pending) {
        ++collisions;
        continue;
      }
      leaf->pending = true;
      // Virtual loss along the path (not the root): the edges look lost to their choosers.
      for (size_t i = 1; i < path_.size(); ++i) {
        path_[i]->n += o_.virtual_loss;
        path_[i]->w -= o_.virtual_loss;
      }
      leaves_.push_back(leaf);
      paths_.push_back(path_);
      positions_.push_back(&leaf->pos);
    }
    if (!leaves_.empty()) return;
  }
}

SearchResult Mcts::Finish() {
  TB_CHECK(root_ != nullptr && positions_.empty(), "Mcts::Finish before the search is done");
  const Node& root = *root_;
  const int size = root.pos.board.size();
  SearchResult out;
  out.readouts = done_;
  out.evaluator_calls = evaluator_calls_;
  out.visits.assign(size * size + 1, 0.0f);
  float total = 0;
  for (size_t k = 0; k < root.moves.size(); ++k) {
    float v = root.children[k] ? root.children[k]->n : 0.0f;
    out.visits[root.moves[k]] = v;
    total += v;
  }
  if (total > 0) {
    for (auto& v : out.visits) v /= total;
  }
  out.root_value = root.n > 0 ? -root.w / root.n : 0.0f;
  int chosen = size * size;
  if (total > 0) {
    if (root.pos.move_number < o_.temperature_moves) {
      std::discrete_distribution<int> pick(out.visits.begin(), out.visits.end());
      chosen = pick(rng_);
    } else {
      chosen = static_cast<int>(std::max_element(out.visits.begin(), out.visits.end()) -
                                out.visits.begin());
    }
  }
  out.move = Position::MovePoint(chosen, size);
  root_ = nullptr;
  used_ = 0;
  if (!o_.node_pool) nodes_.clear();
  return out;
}

}  // namespace trainbench::go
