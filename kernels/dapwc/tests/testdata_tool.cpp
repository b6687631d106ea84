// Inputs and scoring for the command-line tests:
//   dapwc_testdata blobs CLUSTERS PER_CLUSTER SEED PREFIX [big]
//     writes PREFIX.bin (int16 matrix, little- or big-endian), PREFIX.truth
//     (`index label`) and PREFIX.points (`index x y z`);
//   dapwc_testdata score TRUTH LABELS
//     prints `ari=<adjusted Rand index> clusters=<labels used>`.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "planted.hpp"

namespace {

std::vector<int> read_labels(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<int> labels;
  std::int64_t index = 0;
  int label = 0;
  while (in >> index >> label) {
    if (index != static_cast<std::int64_t>(labels.size())) throw std::runtime_error(path + ": indices out of order");
    labels.push_back(label);
  }
  if (!in.eof()) throw std::runtime_error(path + ": not `index label` lines");
  return labels;
}

int write_blobs(int clusters, int per_cluster, unsigned seed, const std::string& prefix, bool big_endian) {
  const auto data = dapwc::testing::gaussian_blobs(clusters, per_cluster, 4.0, 0.3, seed);
  std::ofstream matrix(prefix + ".bin", std::ios::binary);
  for (std::int16_t value : data.stored) {
    const auto u = static_cast<std::uint16_t>(value);
    const char bytes[2] = {static_cast<char>(big_endian ? u >> 8 : u & 0xff),
                           static_cast<char>(big_endian ? u & 0xff : u >> 8)};
    matrix.write(bytes, 2);
  }
  std::ofstream truth(prefix + ".truth"), points(prefix + ".points");
  points << std::setprecision(17);
  for (std::int64_t p = 0; p < data.n; ++p) {
    truth << p << ' ' << data.truth[p] << '\n';
    points << p << ' ' << data.points[p][0] << ' ' << data.points[p][1] << ' ' << data.points[p][2] << '\n';
  }
  return matrix && truth && points ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "blobs" && (argc == 6 || argc == 7))
      return write_blobs(std::atoi(argv[2]), std::atoi(argv[3]), static_cast<unsigned>(std::atoi(argv[4])), argv[5],
                         argc == 7 && std::string(argv[6]) == "big");
    if (command == "score" && argc == 4) {
      const std::vector<int> truth = read_labels(argv[2]), labels = read_labels(argv[3]);
      std::cout << "ari=" << dapwc::testing::adjusted_rand_index(truth, labels)
                << " clusters=" << dapwc::testing::count_labels(labels) << '\n';
      return 0;
    }
    std::cerr << "usage: dapwc_testdata blobs CLUSTERS PER_CLUSTER SEED PREFIX [big] | score TRUTH LABELS\n";
  } catch (const std::exception& e) {
    std::cerr << "dapwc_testdata: " << e.what() << '\n';
  }
  return 1;
}
