// The CF NetCDF writer: a file written with two records is read back with the netCDF C API —
// dimensions, coordinates, CF attributes, the fields and the diagnostics' time series — and a
// file that cannot be created is refused naming it and netCDF's message.
#include <gtest/gtest.h>
#include <netcdf.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "climate/netcdf_output.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

std::string text_att(int ncid, int var, const char* name) {
  std::size_t len = 0;
  if (nc_inq_attlen(ncid, var, name, &len) != NC_NOERR)
    return "<missing " + std::string(name) + ">";
  std::string s(len, '\0');
  EXPECT_EQ(nc_get_att_text(ncid, var, name, s.data()), NC_NOERR);
  return s;
}

int var_id(int ncid, const char* name) {
  int id = -1;
  EXPECT_EQ(nc_inq_varid(ncid, name, &id), NC_NOERR) << name;
  return id;
}

// A synthetic record k: every value distinct and known.
LatLonFields record_fields(const LatLonGrid& grid, int k) {
  LatLonFields f;
  for (int c = 0; c < grid.nlat * grid.nlon; ++c) {
    f.h.push_back(1000 * k + c);
    f.u.push_back(-c - 0.5 * k);
    f.v.push_back(0.25 * c + k);
    f.vorticity.push_back(1e-5 * (c - k));
  }
  return f;
}

TEST(NetcdfOutput, WritesCfFileThatReadsBack) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("climate_nc_" + std::to_string(getpid()) + ".nc"))
          .string();
  const LatLonGrid grid(4, 6);
  {
    NetcdfRunInfo info;
    info.title = "unit test";
    info.test_case = "synthetic";
    info.ne = 3;
    info.p = 5;
    NetcdfWriter w(path, grid, info);
    w.append(0.0, record_fields(grid, 0), {1.0, 2.0, 3.0, 4.0});
    w.append(3600.0, record_fields(grid, 1), {1.5, 2.5, 3.5, 4.5});
    EXPECT_EQ(w.records(), 2);
    w.close();
  }
  int ncid = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &ncid), NC_NOERR);
  // Dimensions: time (unlimited, 2 records), lat 4, lon 6.
  int unlimited = -1, dim = -1;
  std::size_t len = 0;
  ASSERT_EQ(nc_inq_unlimdim(ncid, &unlimited), NC_NOERR);
  ASSERT_EQ(nc_inq_dimid(ncid, "time", &dim), NC_NOERR);
  EXPECT_EQ(dim, unlimited);
  nc_inq_dimlen(ncid, dim, &len);
  EXPECT_EQ(len, 2u);
  nc_inq_dimid(ncid, "lat", &dim);
  nc_inq_dimlen(ncid, dim, &len);
  EXPECT_EQ(len, 4u);
  nc_inq_dimid(ncid, "lon", &dim);
  nc_inq_dimlen(ncid, dim, &len);
  EXPECT_EQ(len, 6u);
  // Global attributes.
  EXPECT_EQ(text_att(ncid, NC_GLOBAL, "Conventions"), "CF-1.8");
  EXPECT_EQ(text_att(ncid, NC_GLOBAL, "title"), "unit test");
  EXPECT_EQ(text_att(ncid, NC_GLOBAL, "test_case"), "synthetic");
  EXPECT_NE(text_att(ncid, NC_GLOBAL, "source").find("cubed sphere"), std::string::npos);
  int ne = 0, p = 0;
  EXPECT_EQ(nc_get_att_int(ncid, NC_GLOBAL, "Ne", &ne), NC_NOERR);
  EXPECT_EQ(nc_get_att_int(ncid, NC_GLOBAL, "p", &p), NC_NOERR);
  EXPECT_EQ(ne, 3);
  EXPECT_EQ(p, 5);
  // Coordinates.
  const int lat = var_id(ncid, "lat"), lon = var_id(ncid, "lon"), time = var_id(ncid, "time");
  EXPECT_EQ(text_att(ncid, lat, "units"), "degrees_north");
  EXPECT_EQ(text_att(ncid, lat, "standard_name"), "latitude");
  EXPECT_EQ(text_att(ncid, lon, "units"), "degrees_east");
  EXPECT_EQ(text_att(ncid, lon, "standard_name"), "longitude");
  EXPECT_EQ(text_att(ncid, time, "units"), "seconds since 2000-01-01 00:00:00");
  EXPECT_EQ(text_att(ncid, time, "standard_name"), "time");
  double lats[4], lons[6], times[2];
  nc_get_var_double(ncid, lat, lats);
  nc_get_var_double(ncid, lon, lons);
  nc_get_var_double(ncid, time, times);
  EXPECT_DOUBLE_EQ(lats[0], -67.5);
  EXPECT_DOUBLE_EQ(lons[5], 150.0);
  EXPECT_DOUBLE_EQ(times[1], 3600.0);
  // Fields: units, standard names, values of both records.
  const struct {
    const char* name;
    const char* units;
    const char* standard_name;
  } fields[] = {{"h", "m", nullptr},
                {"u", "m s-1", "eastward_wind"},
                {"v", "m s-1", "northward_wind"},
                {"vorticity", "s-1", "atmosphere_relative_vorticity"}};
  for (const auto& f : fields) {
    const int id = var_id(ncid, f.name);
    EXPECT_EQ(text_att(ncid, id, "units"), f.units) << f.name;
    if (f.standard_name) {
      EXPECT_EQ(text_att(ncid, id, "standard_name"), f.standard_name);
    }
    int ndims = 0;
    nc_inq_varndims(ncid, id, &ndims);
    ASSERT_EQ(ndims, 3) << f.name;
    std::vector<double> all(2 * 4 * 6);
    ASSERT_EQ(nc_get_var_double(ncid, id, all.data()), NC_NOERR);
    for (int k = 0; k < 2; ++k) {
      const LatLonFields want = record_fields(grid, k);
      const std::vector<double>& w = std::string(f.name) == "h"   ? want.h
                                     : std::string(f.name) == "u" ? want.u
                                     : std::string(f.name) == "v" ? want.v
                                                                  : want.vorticity;
      for (int c = 0; c < 24; ++c) EXPECT_EQ(all[k * 24 + c], w[c]) << f.name << " record " << k;
    }
  }
  // The diagnostics' time series.
  const char* series[] = {"mass", "total_energy", "potential_enstrophy", "max_wind"};
  for (int s = 0; s < 4; ++s) {
    double v[2];
    ASSERT_EQ(nc_get_var_double(ncid, var_id(ncid, series[s]), v), NC_NOERR) << series[s];
    EXPECT_EQ(v[0], 1.0 + s);
    EXPECT_EQ(v[1], 1.5 + s);
  }
  EXPECT_EQ(text_att(ncid, var_id(ncid, "max_wind"), "units"), "m s-1");
  nc_close(ncid);
  std::filesystem::remove(path);
}

TEST(NetcdfOutput, ErrorsNameTheFileAndNetcdfsMessage) {
  const std::string path = "/nonexistent_dir_for_climate_test/out.nc";
  int id = -1;
  const int status = nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &id);  // netCDF's own verdict
  ASSERT_NE(status, NC_NOERR);
  try {
    NetcdfWriter w(path, LatLonGrid(2, 2), {});
    FAIL() << "created " << path;
  } catch (const exadnn::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(nc_strerror(status)), std::string::npos) << msg;
  }
  // A field of the wrong size is refused naming the field.
  const std::string ok = (std::filesystem::temp_directory_path() /
                          ("climate_nc_bad_" + std::to_string(getpid()) + ".nc"))
                             .string();
  NetcdfWriter w(ok, LatLonGrid(2, 3), {});
  LatLonFields f{std::vector<double>(6), std::vector<double>(6), std::vector<double>(5),
                 std::vector<double>(6)};
  try {
    w.append(0, f, {});
    FAIL() << "appended a short field";
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("field v"), std::string::npos) << e.what();
  }
  w.close();
  std::filesystem::remove(ok);
}

}  // namespace
}  // namespace climate

namespace climate {
namespace {

// A resumed run's file: reopened, appending from the first record at or after the resume time
// (that record rewritten, the earlier ones kept); a file of another grid is refused naming both.
TEST(NetcdfOutput, ReopenedFileGoesOnFromTheResumeTime) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("climate_nc_reopen_" + std::to_string(getpid()) + ".nc"))
                               .string();
  const LatLonGrid grid(4, 6);
  {
    NetcdfWriter w(path, grid, NetcdfRunInfo{});
    for (int k = 0; k < 3; ++k) w.append(3600.0 * k, record_fields(grid, k), {1, 2, 3, 4});
  }
  {
    const std::unique_ptr<NetcdfWriter> w = NetcdfWriter::reopen(path, grid, 3600.0);
    EXPECT_EQ(w->records(), 1);  // record 0 kept; records 1 and 2 are rewritten
    w->append(3600.0, record_fields(grid, 7), {1, 2, 3, 4});
    w->close();
  }
  int ncid = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &ncid), NC_NOERR);
  const std::size_t at[3] = {1, 0, 0};
  double h = 0;
  EXPECT_EQ(nc_get_var1_double(ncid, var_id(ncid, "h"), at, &h), NC_NOERR);
  EXPECT_EQ(h, 7000.0);  // record 1 now holds record_fields(grid, 7)
  nc_close(ncid);
  try {
    NetcdfWriter::reopen(path, LatLonGrid(5, 6), 0.0);
    ADD_FAILURE() << "a file of another grid was reopened";
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("its grid is 4 x 6 (lat x lon), the run's 5 x 6"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace climate
