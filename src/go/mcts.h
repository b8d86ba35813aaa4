// Monte-Carlo tree search in the AlphaGo Zero / MiniGo style, network-agnostic:
//   - PUCT selection: argmax Q + c_puct * P * sqrt(N_parent) / (1 + N), illegal moves excluded
//     (their prior is dropped and the rest renormalised);
//   - expansion and evaluation by a batched Evaluator (the network: priors over the N*N points
//     plus pass, and a value in [-1, 1] for the player to move);
//   - value backup with the sign flipped at every ply; a finished game (two passes) is scored
//     exactly (Tromp-Taylor with komi: +1 / -1 / 0) instead of being evaluated;
//   - virtual loss: up to `batch` leaves are selected before one network call, each path made
//     to look lost (N += vl, W -= vl) so the leaves differ;
//   - self-play extras: Dirichlet noise mixed into the root priors, and a temperature (visit
//     proportional sampling for the first `temperature_moves` moves, then the most visited).
// A search runs either whole (Search: the Evaluator is called from the searching thread) or
// step by step (Begin / Pending / Provide / Finish: the caller evaluates each batch of positions,
// so that several searches, e.g. of self-play games played in lockstep, can share one network
// call; the same steps in the same order as Search, so the same result for the same evaluations).
// Threading: one search at a time per Mcts.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "go/game.h"

namespace trainbench::go {

// A position inside the search (lighter than a Game: no move list, but the stones of the last
// kHistory - 1 positions, which the network's input planes need).
struct Position {
  static constexpr int kHistory = 8;
  Board board;
  Color to_play = kBlack;
  int passes = 0;
  int move_number = 0;
  double komi = 7.5;
  std::array<std::array<Color, kPoints>, kHistory - 1> past{};  // past[0]: one move ago
  int past_count = 0;

  // The game's current position with its history (replayed from the game's start).
  static Position Of(const Game& g);
  bool over() const { return passes >= 2; }
  // Index of a move in the network's output: row * size + col, pass = size * size.
  static int MoveIndex(int point, int size) {
    return point == kPass ? size * size : Board::Row(point) * size + Board::Col(point);
  }
  static int MovePoint(int index, int size) {
    return index == size * size ? kPass : Board::Index(index / size, index % size);
  }
  // Plays (must be legal).
  void Play(int point);
  // *this = from, then Play(point), copying only what a board of from's size uses
  // (Board::AssignUsed) and only the history that from has: the same position, a fraction of
  // the memory traffic. (*this must not be `from`.)
  void AssignPlayed(const Position& from, int point);

 private:
  void Advance(int point);  // Play after the history has moved
};

struct Evaluation {
  std::vector<float>
      priors;       // size*size + 1, any non-negative weights (renormalised over legal moves)
  float value = 0;  // for the player to move
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // One evaluation per position, in order.
  virtual void Evaluate(const std::vector<const Position*>& positions,
                        std::vector<Evaluation>* out) = 0;
};

struct MctsOptions {
  int readouts = 200;
  int batch = 8;  // leaves per Evaluator call
  float c_puct = 1.5f;
  float virtual_loss = 1.0f;
  bool root_noise = false;                   // self-play: Dirichlet noise at the root
  float dirichlet_alpha = 0.03f * 361 / 81;  // scaled to the board as MiniGo does (9x9 here)
  float noise_fraction = 0.25f;
  int temperature_moves = 0;  // moves (of the game) played proportionally to visits
  // While the root's move number is below this, no node of the search considers passing
  // (unless it is the only legal move), as MiniGo's early search did for its first 6·N moves:
  // an untrained network's self-play otherwise collapses into games that end by passing.
  int pass_allowed_from_move = 0;
  // An unvisited move's Q is the network's value of the parent position (MiniGo), rather than
  // 0: a losing side then does not try every move once before deepening the best one.
  bool unvisited_q_is_parent_value = true;
  // The search's tree nodes are kept by the Mcts from one search to the next and reused (no
  // allocation per node once the pool has grown to a search's size), and a new node's position
  // is made by Position::AssignPlayed: the same searches, less allocation and copying.
  bool node_pool = false;
  uint64_t seed = 1;
};

struct SearchResult {
  int move = kPass;           // the chosen point (or kPass)
  std::vector<float> visits;  // per move index (size*size + 1), normalised to sum 1
  float root_value = 0;       // mean value for the player to move at the root
  int readouts = 0;
  int evaluator_calls = 0;
};

class Mcts {
 public:
  Mcts(Evaluator& evaluator, MctsOptions options);
  explicit Mcts(MctsOptions options);  // step by step only: Search needs an Evaluator
  ~Mcts();
  SearchResult Search(const Position& root);

  // Step by step: Begin, then while Pending() is not empty, evaluate its positions (in order)
  // and Provide the evaluations; then Finish. Pending's pointers stay valid until Provide.
  void Begin(const Position& root);
  const std::vector<const Position*>& Pending() const { return positions_; }
  void Provide(const Evaluation* evals, size_t count);
  SearchResult Finish();

 private:
  struct Node;
  Node* NewNode();
  Node* Select(Node* root, std::vector<Node*>* path);
  void Expand(Node* n, const Evaluation& e);
  void Backup(const std::vector<Node*>& path, float value);
  void SelectLeaves();  // the next batch into positions_ (empty when the readouts are done)

  Evaluator* evaluator_ = nullptr;
  MctsOptions o_;
  std::mt19937_64 rng_;
  // The search in progress: its nodes are nodes_[0, used_), the root first. Without node_pool
  // they are freed when the search finishes.
  std::vector<std::unique_ptr<Node>> nodes_;
  size_t used_ = 0;
  Node* root_ = nullptr;
  bool root_pending_ = false;
  int done_ = 0, evaluator_calls_ = 0;
  std::vector<Node*> path_, leaves_;
  std::vector<std::vector<Node*>> paths_;
  std::vector<const Position*> positions_;
};

}  // namespace trainbench::go
