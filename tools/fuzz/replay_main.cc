// The byte-level fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput once on each file
// named on the command line (directories: every file in them), so that CTest replays the seed
// corpus and every regression input on the ordinary build. An exception other than the
// documented error types, or a crash, fails the run; with NNREF_FUZZ=ON the same targets link
// with -fsanitize=fuzzer instead (tools/fuzz/run.sh).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
    } else {
      files.push_back(p);
    }
  }
  size_t n = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::cerr << f.string() << ": cannot open\n";
      return 2;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++n;
  }
  std::cout << "replayed " << n << " inputs\n";
  return n ? 0 : 2;
}
