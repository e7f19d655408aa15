// A fixture of headers_local_names_catches_clashes, never compiled: a local function on one line.
namespace herald {
namespace {

int helper(int x) { return x + 1; }

}  // namespace
}  // namespace herald
