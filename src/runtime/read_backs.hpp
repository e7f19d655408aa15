// Head control's read()s and exit()s: the values the program asked for in a batch, where the dispatch found
// each, asked of that rank once the batch's orders are out, and received into the program's buffer.
#pragma once

#include "graph.hpp"
#include "planner.hpp"
#include "store.hpp"
#include "version_lives.hpp"

#include <herald/dyn/channel.hpp>

#include <cstddef>
#include <deque>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace herald::runtime::detail {

class ReadBacks {
 public:
  // `buffers[handle]`: the program's buffer; the planner names the data, for errors.
  ReadBacks(dyn::Channel& channel, Store& store, VersionLives& versions, const std::vector<std::span<std::byte>>& buffers,
            const Planner& planner);

  // The program reads `key` (an exit() once `exit`).
  void want(const Key& key, bool exit) { wanted_.push_back({key, exit}); }
  // The dispatch reached the batch's next read: its value is on `origin`.
  void planned(int origin) { wanted_[planned_++].origin = origin; }
  // Whether a read of this batch wants `key`.
  bool wants(const Key& key) const;
  // Asks each read's value of the rank that holds it (one held in the program's buffer lands at once),
  // and starts the next batch.
  void ask();
  // A value asked for arrives.
  void arrived(const dyn::Channel::Arrival& a);
  std::size_t left() const noexcept { return left_; }

 private:
  struct Wanted {
    Key key;
    bool exit;
    int origin = 0;
  };
  dyn::Channel& channel_;
  Store& store_;
  VersionLives& versions_;
  const std::vector<std::span<std::byte>>& buffers_;
  const Planner& planner_;
  std::vector<Wanted> wanted_;  // this batch's, in the program's order
  std::size_t planned_ = 0;
  std::size_t left_ = 0;
  std::unordered_map<Key, std::deque<bool>, KeyHash> asked_;  // values on their way: exit or not, in order
};

}  // namespace herald::runtime::detail
