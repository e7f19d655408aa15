// Owns the test programs' precompiled header (tests/CMakeLists.txt): a program with no tests of its own.
#include <gtest/gtest.h>
