// Reading climate_run's NetCDF files back and comparing two runs: a record read as written (the
// last by −1), the area-weighted relative differences against values worked out here, and the
// refusals (missing file, variable or record; grids that differ).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "climate/netcdf_input.h"
#include "climate/netcdf_output.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("climate_in_" + std::to_string(getpid()) + "_" + name + ".nc"))
      .string();
}

// Vorticity k + the cell index, the other fields anything.
LatLonFields fields(const LatLonGrid& grid, double k) {
  LatLonFields f;
  for (int c = 0; c < grid.nlat * grid.nlon; ++c) {
    f.h.push_back(1e4 + c);
    f.u.push_back(c);
    f.v.push_back(-c);
    f.vorticity.push_back(k + c);
  }
  return f;
}

void write(const std::string& path, const LatLonGrid& grid, double offset) {
  NetcdfWriter w(path, grid, {"test", "synthetic", 2, 3});
  w.append(0.0, fields(grid, offset), {1, 2, 3, 4});
  w.append(86400.0, fields(grid, 2 * offset), {1, 2, 3, 4});
  w.close();
}

TEST(NetcdfInput, ReadsRecordsBackAndComparesRuns) {
  const LatLonGrid grid(4, 6);
  const std::string a = temp_path("a"), b = temp_path("b");
  write(a, grid, 0.0);
  write(b, grid, 1.0);
  EXPECT_EQ(latlon_records(a), 2);
  const LatLonRecord last = read_latlon_record(b, "vorticity", -1);
  EXPECT_EQ(last.time, 86400.0);
  ASSERT_EQ(last.values.size(), 24u);
  for (int c = 0; c < 24; ++c) EXPECT_EQ(last.values[c], 2.0 + c);
  EXPECT_EQ(read_latlon_record(b, "vorticity", 0).values[5], 6.0);

  // A run equal to the reference: no difference.
  const FieldDifference same = field_difference(last, last);
  EXPECT_EQ(same.l2_relative, 0.0);
  EXPECT_EQ(same.linf_relative, 0.0);
  // a's last record (c) against b's (2 + c): every cell 2 apart, weighted by cos(latitude).
  const FieldDifference d = field_difference(read_latlon_record(a, "vorticity", 1), last);
  double diff2 = 0, ref2 = 0;
  for (int c = 0; c < 24; ++c) {
    const double w = std::cos(grid.lat_deg(c / 6) * M_PI / 180.0);
    diff2 += w * 4.0;
    ref2 += w * (2.0 + c) * (2.0 + c);
  }
  EXPECT_NEAR(d.l2_relative, std::sqrt(diff2 / ref2), 1e-14);
  EXPECT_NEAR(d.linf_relative, 2.0 / 25.0, 1e-15);
  EXPECT_EQ(d.run_min, 0.0);
  EXPECT_EQ(d.run_max, 23.0);
  EXPECT_EQ(d.reference_max, 25.0);

  const auto fails_with = [](auto&& f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "no error; expected one with '" << needle << "'";
    } catch (const exadnn::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  fails_with([&] { read_latlon_record(a, "pressure", 0); }, "variable 'pressure'");
  fails_with([&] { read_latlon_record(a, "h", 2); }, "record 2 does not exist (the file holds 2)");
  fails_with([&] { read_latlon_record(a, "mass", 0); }, "not (time, lat, lon)");
  fails_with([&] { read_latlon_record(temp_path("missing"), "h", 0); }, "missing");
  const std::string c = temp_path("c");
  write(c, LatLonGrid(3, 6), 0.0);
  fails_with([&] { field_difference(read_latlon_record(c, "h", 0), last); }, "3 x 6");
  for (const std::string& p : {a, b, c}) std::filesystem::remove(p);
}

// Runs written at different intervals pair the records at the times both hold.
TEST(NetcdfInput, RecordsPairByTime) {
  const std::string daily = temp_path("daily"), twice = temp_path("twice");
  const LatLonGrid grid(2, 4);
  {
    NetcdfWriter w(daily, grid, {"test", "synthetic", 2, 3});
    for (const double t : {0.0, 86400.0, 2 * 86400.0}) w.append(t, fields(grid, t), {1, 2, 3, 4});
    w.close();
    NetcdfWriter v(twice, grid, {"test", "synthetic", 2, 3});
    for (int k = 0; k <= 3; ++k) v.append(k * 43200.0, fields(grid, k), {1, 2, 3, 4});
    v.close();
  }
  const std::vector<double> a = latlon_times(daily), b = latlon_times(twice);
  EXPECT_EQ(a, (std::vector<double>{0.0, 86400.0, 172800.0}));
  ASSERT_EQ(b.size(), 4u);
  using Pairs = std::vector<std::pair<int, int>>;
  EXPECT_EQ(records_at_common_times(a, b), (Pairs{{0, 0}, {1, 2}}));  // day 2: not in `twice`
  EXPECT_EQ(records_at_common_times(b, a), (Pairs{{0, 0}, {2, 1}}));
  EXPECT_EQ(records_at_common_times({3600.0}, a), Pairs{});
  // Times written by separate runs differ in their last bits, and still pair.
  EXPECT_EQ(records_at_common_times({86400.0 * (1 + 1e-12)}, a), (Pairs{{0, 1}}));
  for (const std::string& p : {daily, twice}) std::filesystem::remove(p);
}

}  // namespace
}  // namespace climate
