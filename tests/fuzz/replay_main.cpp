// A main for the fuzz targets where libFuzzer is not at hand (GCC): runs
// the target once on each file named on the command line, or on each file
// in each directory named, so that ctest replays the seed corpus.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

namespace {

void run_file(const fs::path& path) {
  std::ifstream in{path, std::ios::binary};
  std::string bytes{std::istreambuf_iterator<char>{in},
                    std::istreambuf_iterator<char>{}};
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                         bytes.size());
}

} // namespace

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path p{argv[i]};
    std::vector<fs::path> paths;
    if (fs::is_directory(p))
      for (const auto& e : fs::directory_iterator{p})
        paths.push_back(e.path());
    else
      paths.push_back(p);
    for (const auto& f : paths) {
      run_file(f);
      ++files;
    }
  }
  std::printf("ran %d inputs\n", files);
  return files > 0 ? 0 : 1;
}
