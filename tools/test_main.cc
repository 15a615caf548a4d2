// The single doctest main shared by all unit-test executables (doctest's main is costly to
// compile).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
