#include "version_lives.hpp"

namespace herald::runtime::detail {

VersionLives::VersionLives(Planner& planner, Store& store, const std::vector<std::span<std::byte>>& buffers, int ranks)
    : planner_(planner), store_(store), buffers_(buffers), releases_(static_cast<std::size_t>(ranks)) {}

void VersionLives::made(const Key& key, bool produced) {
  Version& v = versions_[key];
  v = Version(&nodes_);
  v.produced = produced;
  if (key.version > 1) release_if_unneeded({key.handle, key.version - 1});
}

void VersionLives::produced(const Key& key) {
  versions_.at(key).produced = true;
  release_if_unneeded(key);
}

void VersionLives::reader_done(const Key& key) {
  --versions_.at(key).readers_left;
  release_if_unneeded(key);
}

void VersionLives::landed(const Key& key, bool exit) {
  Version& v = versions_.at(key);
  v.exited = v.exited || exit;
  reader_done(key);
}

void VersionLives::superseded(const Key& key, std::span<const int> holders) {
  const auto it = versions_.find(key);
  if (it == versions_.end()) return;  // released already: superseded before this batch, and done
  it->second.holders.assign(holders.begin(), holders.end());
}

std::span<const int> VersionLives::holders(const Key& key, const Version& v) const {
  if (planner_.plan().latest(key)) return planner_.plan().datum(key.handle).replicas.holders;
  return {v.holders.data(), v.holders.size()};
}

void VersionLives::release(int rank, const Key& key) {
  if (rank == 0)
    store_.release(key);
  else
    releases_[static_cast<std::size_t>(rank)].push_back(key);
}

void VersionLives::release_if_unneeded(const Key& key) {
  const auto it = versions_.find(key);
  if (it == versions_.end()) return;
  Version& v = it->second;
  if (!v.produced || v.readers_left > 0) return;
  if (planner_.graph().version(key.handle) > key.version) {
    // Superseded and read by everyone who will: no replica is needed any more.
    for (int holder : holders(key, v)) release(holder, key);
    versions_.erase(it);
  } else if (v.exited) {
    // exit(): the program's buffer is the value again, and the workers' replicas go.
    for (int holder : holders(key, v))
      if (holder != 0) release(holder, key);
    planner_.plan().returned(key.handle, 0);
    v.exited = false;
    store_.put(key, Replica::borrowed(buffers_[key.handle]));
  }
}

}  // namespace herald::runtime::detail
