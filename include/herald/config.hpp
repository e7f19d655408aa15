// Configuration has one home: HERALD_* environment variables (listed in docs/configuration.md) and the
// values given per call, which win over them. This header holds core's generic parsers and readers; each layer's
// own readers are its own (coll's: <herald/coll_settings.hpp>).
#pragma once

#include <herald/error.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace herald {

// "4096", "64K", "16M", "2G" (powers of 1024; a trailing "B"/"iB" is accepted). Throws Error(invalid_argument)
// naming `what` on anything else, including overflow.
std::size_t parse_bytes(std::string_view text, std::string_view what = "size");

// A non-negative integer; throws Error(invalid_argument) naming `what` otherwise.
long long parse_count(std::string_view text, std::string_view what);
// A switch: 1/0, true/false, yes/no, on/off, in any case; anything else is refused, naming `what`.
bool parse_switch(std::string_view text, std::string_view what);
// Comma-separated counts ("4,16,64"), each as parse_count takes it; at least one.
std::vector<long long> parse_count_list(std::string_view text, std::string_view what);

// A non-negative, finite number (seconds, say); throws Error(invalid_argument) naming `what` otherwise.
double parse_seconds(std::string_view text, std::string_view what);

// The value of an environment variable, if set and not empty.
std::optional<std::string> environment(const char* name);
// The ranks the launcher started on this rank's node (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's
// MPI_LOCALNRANKS), or 0 when it does not say. Not a herald setting: the launcher's own word.
int launcher_ranks_on_node();

// With HERALD_STRICT_SETTINGS=1, throws Error(invalid_argument) naming the first unknown or deprecated
// HERALD_* variable in the environment (without it, rank 0 warns once instead). Each layer calls it where it
// reads its settings, so the refusal reaches the caller as that layer's other setting errors do.
void require_known_settings();

// A switch variable (parse_switch's rule), or `unset` when it is not set.
bool environment_switch(const char* name, bool unset = false);

}  // namespace herald
