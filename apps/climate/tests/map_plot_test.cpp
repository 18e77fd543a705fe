// PNG maps with PLplot: the file is a PNG of the requested size; bad input is refused by name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "climate/map_plot.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

std::string temp_png(const char* name) {
  return (std::filesystem::temp_directory_path() /
          (std::string(name) + std::to_string(getpid()) + ".png"))
      .string();
}

TEST(MapPlot, WritesAPngOfTheRequestedSize) {
  const LatLonGrid grid(45, 90);
  std::vector<double> field(45 * 90);
  for (int i = 0; i < 45; ++i)
    for (int j = 0; j < 90; ++j)
      field[i * 90 + j] = 1e-4 * std::sin(grid.lat_deg(i) * 0.1) * std::cos(grid.lon_deg(j) * 0.05);
  for (const bool diverging : {true, false}) {
    const std::string path = temp_png(diverging ? "climate_map_div_" : "climate_map_seq_");
    MapOptions o{"test map, day 1.00", "relative vorticity [1/s]", 640, 360};
    o.diverging = diverging;
    write_map_png(path, grid, field, o);
    int w = 0, h = 0;
    ASSERT_TRUE(read_png_size(path, w, h)) << path;
    EXPECT_EQ(w, 640);
    EXPECT_EQ(h, 360);
    // Shades, axes, text: far more than an empty image's few hundred bytes.
    EXPECT_GT(std::filesystem::file_size(path), 10000u);
    std::filesystem::remove(path);
  }
  // A constant field draws too.
  const std::string path = temp_png("climate_map_const_");
  write_map_png(path, grid, std::vector<double>(45 * 90, 3.0), {"constant", "h [m]", 300, 200});
  int w = 0, h = 0;
  EXPECT_TRUE(read_png_size(path, w, h));
  std::filesystem::remove(path);
}

TEST(MapPlot, RefusesBadInput) {
  const LatLonGrid grid(4, 8);
  std::vector<double> field(32, 1.0);
  const std::string path = temp_png("climate_map_bad_");
  field[13] = std::nan("");
  try {
    write_map_png(path, grid, field, {"t", "l"});
    FAIL();
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("value 13"), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_map_png(path, grid, std::vector<double>(31), {"t", "l"}), exadnn::Error);
  EXPECT_THROW(write_map_png(path, grid, std::vector<double>(32), {"t", "l", 50, 50}),
               exadnn::Error);
  EXPECT_THROW(write_map_png("/nonexistent_dir_for_climate_test/m.png", grid,
                             std::vector<double>(32), {"t", "l"}),
               exadnn::Error);
  int w, h;
  EXPECT_FALSE(read_png_size("/nonexistent_dir_for_climate_test/m.png", w, h));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace climate
