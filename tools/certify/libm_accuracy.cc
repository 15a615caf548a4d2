// nnref_libmaccuracy: the evidence behind the bounds of ops/correctly_rounded.h. For each libm
// function the reference uses, the largest error of glibc's double version (in double ulps) and of
// libquadmath's __float128 version (in quad ulps, 2^-112 relative at most) against MPFR, on random
// finite float32 inputs (results between 2^-1000 and 2^1000 in magnitude), and the time per call.
// Usage: build/bin/nnref_libmaccuracy [--samples N]   (default 100000 per function)
#include <mpfr.h>
#include <quadmath.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace {

using Quad = __float128;

struct Function {
  const char* name;
  Quad (*quad)(Quad);
  int (*mpfr)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
  double (*dbl)(double);
  bool positive;         // domain x > 0 (log)
  bool above_minus_one;  // domain x > -1 (log1p)
};

// q exactly into m (113 bits as three doubles of q scaled into [0.5, 1)).
void SetQuad(mpfr_t m, Quad q) {
  int e = 0;
  const Quad s = frexpq(q, &e);
  const double hi = static_cast<double>(s);
  const Quad r = s - static_cast<Quad>(hi);
  const double mid = static_cast<double>(r);
  const double lo = static_cast<double>(r - static_cast<Quad>(mid));
  mpfr_set_d(m, hi, MPFR_RNDN);
  mpfr_add_d(m, m, mid, MPFR_RNDN);
  mpfr_add_d(m, m, lo, MPFR_RNDN);
  mpfr_mul_2si(m, m, e, MPFR_RNDN);
}

// |got - exact| in units of 2^(exponent of got - bits + 1).
double Ulps(mpfr_t diff, mpfr_srcptr exact, mpfr_srcptr got, int exponent, int bits) {
  mpfr_sub(diff, got, exact, MPFR_RNDN);
  mpfr_mul_2si(diff, diff, bits - 1 - exponent, MPFR_RNDN);
  return std::fabs(mpfr_get_d(diff, MPFR_RNDN));
}

}  // namespace

int main(int argc, char** argv) {
  int samples = 100000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--samples")) samples = std::atoi(argv[++i]);
  }
  const Function functions[] = {
      {"exp", expq, mpfr_exp, ::exp, false, false},
      {"expm1", expm1q, mpfr_expm1, ::expm1, false, false},
      {"log", logq, mpfr_log, ::log, true, false},
      {"log1p", log1pq, mpfr_log1p, ::log1p, false, true},
      {"sin", sinq, mpfr_sin, ::sin, false, false},
      {"cos", cosq, mpfr_cos, ::cos, false, false},
      {"tan", tanq, mpfr_tan, ::tan, false, false},
      {"erf", erfq, mpfr_erf, ::erf, false, false},
      {"erfc", erfcq, mpfr_erfc, ::erfc, false, false},
      {"tanh", tanhq, mpfr_tanh, ::tanh, false, false},
  };
  mpfr_t x, y, d, g;
  mpfr_inits2(600, x, y, d, g, static_cast<mpfr_ptr>(nullptr));
  std::printf("%-6s %8s %14s %14s %12s %12s\n", "fn", "inputs", "double ulps", "quad ulps",
              "double ns", "quad ns");
  for (const Function& f : functions) {
    std::mt19937_64 rng(1);
    double worst_d = 0, worst_q = 0, ns_d = 0, ns_q = 0;
    int n = 0;
    volatile double sink = 0;
    while (n < samples) {
      const uint32_t bits = static_cast<uint32_t>(rng());
      float xf = 0;
      std::memcpy(&xf, &bits, sizeof xf);
      if (!std::isfinite(xf)) continue;
      if (f.positive && xf <= 0) xf = -xf;
      if ((f.positive && xf == 0) || (f.above_minus_one && xf <= -1)) continue;
      const double xd = static_cast<double>(xf);
      const auto t0 = std::chrono::steady_clock::now();
      const Quad q = f.quad(static_cast<Quad>(xd));
      const auto t1 = std::chrono::steady_clock::now();
      const double r = f.dbl(xd);
      const auto t2 = std::chrono::steady_clock::now();
      sink = sink + r;
      const Quad aq = q < 0 ? -q : q;
      if (!(aq > static_cast<Quad>(0x1p-1000) && aq < static_cast<Quad>(0x1p1000))) continue;
      ns_q += std::chrono::duration<double, std::nano>(t1 - t0).count();
      ns_d += std::chrono::duration<double, std::nano>(t2 - t1).count();
      mpfr_set_d(x, xd, MPFR_RNDN);
      f.mpfr(y, x, MPFR_RNDN);
      int e = 0;
      frexpq(q, &e);
      SetQuad(g, q);
      worst_q = std::max(worst_q, Ulps(d, y, g, e - 1, 113));
      std::frexp(r, &e);
      mpfr_set_d(g, r, MPFR_RNDN);
      worst_d = std::max(worst_d, Ulps(d, y, g, e - 1, 53));
      ++n;
    }
    std::printf("%-6s %8d %14.3f %14.3f %12.1f %12.1f\n", f.name, n, worst_d, worst_q, ns_d / n,
                ns_q / n);
  }
  mpfr_clears(x, y, d, g, static_cast<mpfr_ptr>(nullptr));
  return 0;
}
