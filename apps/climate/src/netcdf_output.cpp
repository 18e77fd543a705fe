#include "climate/netcdf_output.h"

#include <netcdf.h>

#include <vector>

#include "exadnn/core/error.h"

namespace climate {
namespace {

void put_text(int ncid, int var, const char* name, const std::string& value, int& status) {
  if (status == NC_NOERR) status = nc_put_att_text(ncid, var, name, value.size(), value.c_str());
}

}  // namespace

void NetcdfWriter::check(int status, const char* what) const {
  EXADNN_CHECK(status == NC_NOERR, "NetcdfWriter", path_, ": ", what, ": ", nc_strerror(status));
}

int NetcdfWriter::def_var(const char* name, int ndims, const int* dims, const char* units,
                          const char* standard_name, const char* long_name) {
  int var = -1;
  check(nc_def_var(ncid_, name, NC_DOUBLE, ndims, dims, &var), name);
  int status = NC_NOERR;
  put_text(ncid_, var, "units", units, status);
  if (standard_name) put_text(ncid_, var, "standard_name", standard_name, status);
  put_text(ncid_, var, "long_name", long_name, status);
  check(status, name);
  return var;
}

NetcdfWriter::NetcdfWriter(const std::string& path, const LatLonGrid& grid,
                           const NetcdfRunInfo& info)
    : path_(path), nlat_(grid.nlat), nlon_(grid.nlon) {
  check(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &ncid_), "creating the file");
  int time_dim, lat_dim, lon_dim;
  check(nc_def_dim(ncid_, "time", NC_UNLIMITED, &time_dim), "defining dimension time");
  check(nc_def_dim(ncid_, "lat", grid.nlat, &lat_dim), "defining dimension lat");
  check(nc_def_dim(ncid_, "lon", grid.nlon, &lon_dim), "defining dimension lon");

  const std::string time_units = "seconds since " + info.time_origin;
  time_var_ = def_var("time", 1, &time_dim, time_units.c_str(), "time", "time");
  const int lat_var = def_var("lat", 1, &lat_dim, "degrees_north", "latitude", "latitude");
  const int lon_var = def_var("lon", 1, &lon_dim, "degrees_east", "longitude", "longitude");
  int status = NC_NOERR;
  put_text(ncid_, time_var_, "axis", "T", status);
  put_text(ncid_, time_var_, "calendar", "standard", status);
  put_text(ncid_, lat_var, "axis", "Y", status);
  put_text(ncid_, lon_var, "axis", "X", status);
  check(status, "coordinate attributes");

  const int dims[3] = {time_dim, lat_dim, lon_dim};
  h_var_ =
      def_var("h", 3, dims, "m", nullptr, "surface height (fluid depth above the flat bottom)");
  u_var_ = def_var("u", 3, dims, "m s-1", "eastward_wind", "eastward wind");
  v_var_ = def_var("v", 3, dims, "m s-1", "northward_wind", "northward wind");
  vort_var_ =
      def_var("vorticity", 3, dims, "s-1", "atmosphere_relative_vorticity", "relative vorticity");
  for (const int var : {h_var_, u_var_, v_var_, vort_var_})  // lossless: shuffle + deflate 1
    check(nc_def_var_deflate(ncid_, var, 1, 1, 1), "setting the compression");
  mass_var_ = def_var("mass", 1, &time_dim, "m3", nullptr, "total mass per unit density, int h dA");
  energy_var_ = def_var("total_energy", 1, &time_dim, "m5 s-2", nullptr,
                        "total energy per unit density, int (h |u|^2 / 2 + g h^2 / 2) dA");
  enstrophy_var_ = def_var("potential_enstrophy", 1, &time_dim, "m s-2", nullptr,
                           "potential enstrophy, int (zeta + f)^2 / (2 h) dA");
  wind_var_ = def_var("max_wind", 1, &time_dim, "m s-1", "wind_speed", "maximum wind speed");
  status = NC_NOERR;
  put_text(ncid_, wind_var_, "cell_methods", "area: maximum", status);

  put_text(ncid_, NC_GLOBAL, "Conventions", "CF-1.8", status);
  put_text(ncid_, NC_GLOBAL, "title", info.title, status);
  put_text(ncid_, NC_GLOBAL, "source",
           "exadnn apps/climate: shallow water on the cubed sphere, DG (LGL, Rusanov flux) + RK4, "
           "regridded by the degree-p Lagrange interpolant",
           status);
  put_text(ncid_, NC_GLOBAL, "test_case", info.test_case, status);
  if (status == NC_NOERR) status = nc_put_att_int(ncid_, NC_GLOBAL, "Ne", NC_INT, 1, &info.ne);
  if (status == NC_NOERR) status = nc_put_att_int(ncid_, NC_GLOBAL, "p", NC_INT, 1, &info.p);
  check(status, "global attributes");
  check(nc_enddef(ncid_), "ending the definitions");

  std::vector<double> lat(grid.nlat), lon(grid.nlon);
  for (int i = 0; i < grid.nlat; ++i) lat[i] = grid.lat_deg(i);
  for (int j = 0; j < grid.nlon; ++j) lon[j] = grid.lon_deg(j);
  check(nc_put_var_double(ncid_, lat_var, lat.data()), "writing lat");
  check(nc_put_var_double(ncid_, lon_var, lon.data()), "writing lon");
}

int NetcdfWriter::var_id(const char* name) const {
  int id = -1;
  check(nc_inq_varid(ncid_, name, &id), name);
  return id;
}

std::unique_ptr<NetcdfWriter> NetcdfWriter::reopen(const std::string& path, const LatLonGrid& grid,
                                                   double rewrite_from) {
  return std::unique_ptr<NetcdfWriter>(new NetcdfWriter(Reopen{}, path, grid, rewrite_from));
}

NetcdfWriter::NetcdfWriter(Reopen, const std::string& path, const LatLonGrid& grid,
                           double rewrite_from)
    : path_(path), nlat_(grid.nlat), nlon_(grid.nlon) {
  check(nc_open(path.c_str(), NC_WRITE, &ncid_), "opening the file to continue it");
  try {
    auto length = [this](const char* dim) {
      int id = -1;
      std::size_t n = 0;
      check(nc_inq_dimid(ncid_, dim, &id), dim);
      check(nc_inq_dimlen(ncid_, id, &n), dim);
      return n;
    };
    const std::size_t nlat = length("lat"), nlon = length("lon"), records = length("time");
    EXADNN_CHECK(nlat == static_cast<std::size_t>(nlat_) && nlon == static_cast<std::size_t>(nlon_),
                 "NetcdfWriter", path_, ": its grid is ", nlat, " x ", nlon,
                 " (lat x lon), the run's ", nlat_, " x ", nlon_);
    time_var_ = var_id("time");
    h_var_ = var_id("h");
    u_var_ = var_id("u");
    v_var_ = var_id("v");
    vort_var_ = var_id("vorticity");
    mass_var_ = var_id("mass");
    energy_var_ = var_id("total_energy");
    enstrophy_var_ = var_id("potential_enstrophy");
    wind_var_ = var_id("max_wind");
    records_found_ = static_cast<int>(records);
    std::vector<double> times(records);
    if (records > 0) check(nc_get_var_double(ncid_, time_var_, times.data()), "reading time");
    // Times are output times k * interval: "before" with a margin far below any interval.
    while (records_ < static_cast<int>(records) && times[records_] < rewrite_from - 1e-6)
      ++records_;
  } catch (...) {
    nc_close(ncid_);
    ncid_ = -1;
    throw;
  }
}

NetcdfWriter::~NetcdfWriter() {
  if (ncid_ >= 0) nc_close(ncid_);
}

void NetcdfWriter::close() {
  if (ncid_ < 0) return;
  const int id = ncid_;
  ncid_ = -1;
  check(nc_close(id), "closing the file");
}

void NetcdfWriter::append(double t, const LatLonFields& fields, const Invariants& diag) {
  EXADNN_CHECK(ncid_ >= 0, "NetcdfWriter", path_, ": append after close");
  const struct {
    const std::vector<double>& data;
    int var;
    const char* name;
  } grids[] = {{fields.h, h_var_, "h"},
               {fields.u, u_var_, "u"},
               {fields.v, v_var_, "v"},
               {fields.vorticity, vort_var_, "vorticity"}};
  for (const auto& g : grids)
    EXADNN_CHECK(g.data.size() == static_cast<std::size_t>(nlat_) * nlon_, "NetcdfWriter", path_,
                 ": field ", g.name, " has ", g.data.size(), " values, the grid ", nlat_, " x ",
                 nlon_);
  const std::size_t rec = static_cast<std::size_t>(records_);
  check(nc_put_var1_double(ncid_, time_var_, &rec, &t), "writing time");
  const struct {
    double value;
    int var;
    const char* name;
  } series[] = {{diag.mass, mass_var_, "writing mass"},
                {diag.energy, energy_var_, "writing total_energy"},
                {diag.enstrophy, enstrophy_var_, "writing potential_enstrophy"},
                {diag.max_wind, wind_var_, "writing max_wind"}};
  for (const auto& s : series) check(nc_put_var1_double(ncid_, s.var, &rec, &s.value), s.name);
  const std::size_t start[3] = {rec, 0, 0};
  const std::size_t count[3] = {1, static_cast<std::size_t>(nlat_),
                                static_cast<std::size_t>(nlon_)};
  for (const auto& g : grids) {
    const std::string what = std::string("writing ") + g.name;
    check(nc_put_vara_double(ncid_, g.var, start, count, g.data.data()), what.c_str());
  }
  check(nc_sync(ncid_), "syncing");
  ++records_;
}

}  // namespace climate
