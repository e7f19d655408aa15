// A fixture of headers_local_names_catches_clashes, never compiled: a static function of the same name, its
// parameters on two lines, and a using-directive at namespace scope.
namespace herald {

using namespace std;

static long helper(long x,
                   long y) {
  return x + y;
}

}  // namespace herald
