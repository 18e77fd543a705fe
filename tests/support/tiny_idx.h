// A tiny synthetic IDX classification task for the train layer's and the command line's tests:
// 4x4 images whose class (0..2) is the quadrant holding a bright block, and a config that learns
// it in seconds.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "exadnn/train/config.h"

namespace exadnn::fixtures {

namespace fs = std::filesystem;

inline void put_be32(std::ofstream& f, uint32_t v) {
  const unsigned char b[4] = {static_cast<unsigned char>(v >> 24),
                              static_cast<unsigned char>(v >> 16),
                              static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
  f.write(reinterpret_cast<const char*>(b), 4);
}

// n 4x4 images whose class (0..2) is the quadrant holding a bright block; labels to match.
inline void write_split(const fs::path& dir, const std::string& name, int n, uint32_t seed) {
  std::ofstream images(dir / (name + "-images.idx"), std::ios::binary);
  std::ofstream labels(dir / (name + "-labels.idx"), std::ios::binary);
  put_be32(images, 0x803);
  put_be32(images, static_cast<uint32_t>(n));
  put_be32(images, 4);
  put_be32(images, 4);
  put_be32(labels, 0x801);
  put_be32(labels, static_cast<uint32_t>(n));
  uint32_t state = seed;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    const int label = static_cast<int>((state >> 16) % 3);
    for (int p = 0; p < 16; ++p) {
      state = state * 1664525u + 1013904223u;
      const int row = p / 4, col = p % 4;
      const bool hot = (label == 0 && row < 2 && col < 2) || (label == 1 && row < 2 && col >= 2) ||
                       (label == 2 && row >= 2);
      images.put(static_cast<char>(hot ? 200 + (state >> 28) : (state >> 27)));
    }
    labels.put(static_cast<char>(label));
  }
}

inline train::TrainConfig tiny_config(const fs::path& dir, int epochs) {
  const std::string yaml =
      "data: {dataset: idx, train_images: " + (dir / "train-images.idx").string() +
      ", train_labels: " + (dir / "train-labels.idx").string() +
      ", test_images: " + (dir / "test-images.idx").string() +
      ", test_labels: " + (dir / "test-labels.idx").string() +
      ", batch_size: 16}\n"
      "model:\n  - flatten\n  - linear: {out: 16}\n  - relu\n  - dropout: {p: 0.1}\n"
      "  - linear: {out: 3}\n"
      "optimizer: {name: sgd, lr: 0.1, momentum: 0.9}\n"
      "epochs: " +
      std::to_string(epochs) + "\nseed: 7\n";
  return train::parse_config(yaml, "tiny.yaml");
}

inline fs::path scratch() {
  const fs::path dir = fs::temp_directory_path() / ("exadnn_cli_" + std::to_string(::getpid()));
  fs::remove_all(dir);  // an earlier process with the same pid (a second test run) left its files
  fs::create_directories(dir);
  write_split(dir, "train", 192, 1);
  write_split(dir, "test", 60, 2);
  return dir;
}

}  // namespace exadnn::fixtures
