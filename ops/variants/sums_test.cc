#include <doctest/doctest.h>
#include "ops/variants/variants.h"
TEST_CASE("variants: generic mutants are registered") {
  CHECK(nnref::AlternativesFor(nnref::OpId::add).size() >= 3);
}
