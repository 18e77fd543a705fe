// netcdf_input.h: one record of a (time, lat, lon) variable through the netCDF C API, and the
// area-weighted difference of two.
#include "climate/netcdf_input.h"

#include <netcdf.h>

#include <algorithm>
#include <cmath>

#include "exadnn/core/error.h"

namespace climate {
namespace {

using exadnn::Error;
using exadnn::detail::cat;

// Closes the file on every path out.
class OpenFile {
 public:
  explicit OpenFile(const std::string& path) : path_(path) {
    check(nc_open(path.c_str(), NC_NOWRITE, &id_), "nc_open");
  }
  ~OpenFile() { nc_close(id_); }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int id() const { return id_; }
  void check(int status, const std::string& what) const {
    if (status != NC_NOERR)
      throw Error("climate::netcdf_input", cat(path_, ": ", what, ": ", nc_strerror(status)));
  }
  std::size_t dim_length(const char* name) const {
    int dim = -1;
    std::size_t len = 0;
    check(nc_inq_dimid(id_, name, &dim), cat("dimension '", name, "'"));
    check(nc_inq_dimlen(id_, dim, &len), cat("the length of '", name, "'"));
    return len;
  }

 private:
  std::string path_;
  int id_ = -1;
};

}  // namespace

int latlon_records(const std::string& path) {
  return static_cast<int>(OpenFile(path).dim_length("time"));
}

std::vector<double> latlon_times(const std::string& path) {
  const OpenFile file(path);
  std::vector<double> times(file.dim_length("time"));
  int time_var = -1;
  file.check(nc_inq_varid(file.id(), "time", &time_var), "variable 'time'");
  if (!times.empty())
    file.check(nc_get_var_double(file.id(), time_var, times.data()), "reading the times");
  return times;
}

std::vector<std::pair<int, int>> records_at_common_times(
    const std::vector<double>& run_times, const std::vector<double>& reference_times) {
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t k = 0; k < run_times.size(); ++k)
    for (std::size_t j = 0; j < reference_times.size(); ++j)
      if (std::fabs(run_times[k] - reference_times[j]) <=
          1e-6 * std::fmax(1.0, std::fabs(reference_times[j]))) {
        pairs.emplace_back(static_cast<int>(k), static_cast<int>(j));
        break;
      }
  return pairs;
}

LatLonRecord read_latlon_record(const std::string& path, const std::string& name, int record) {
  const OpenFile file(path);
  const std::size_t times = file.dim_length("time"), nlat = file.dim_length("lat"),
                    nlon = file.dim_length("lon");
  int var = -1, ndims = 0;
  file.check(nc_inq_varid(file.id(), name.c_str(), &var), cat("variable '", name, "'"));
  file.check(nc_inq_varndims(file.id(), var, &ndims), cat("the dimensions of '", name, "'"));
  if (ndims != 3)
    throw Error("climate::read_latlon_record", cat(path, ": variable '", name, "' has ", ndims,
                                                   " dimensions, not (time, lat, lon)"));
  const long index = record < 0 ? static_cast<long>(times) + record : record;
  if (index < 0 || index >= static_cast<long>(times))
    throw Error("climate::read_latlon_record",
                cat(path, ": record ", record, " does not exist (the file holds ", times, ")"));
  LatLonRecord r;
  r.grid = LatLonGrid(static_cast<int>(nlat), static_cast<int>(nlon));
  r.values.resize(nlat * nlon);
  const std::size_t start[3] = {static_cast<std::size_t>(index), 0, 0}, count[3] = {1, nlat, nlon};
  file.check(nc_get_vara_double(file.id(), var, start, count, r.values.data()),
             cat("reading record ", index, " of '", name, "'"));
  int time_var = -1;
  file.check(nc_inq_varid(file.id(), "time", &time_var), "variable 'time'");
  const std::size_t at = static_cast<std::size_t>(index);
  file.check(nc_get_var1_double(file.id(), time_var, &at, &r.time), "reading the time");
  return r;
}

FieldDifference field_difference(const LatLonRecord& run, const LatLonRecord& reference) {
  if (run.grid.nlat != reference.grid.nlat || run.grid.nlon != reference.grid.nlon ||
      run.values.size() != reference.values.size())
    throw Error(
        "climate::field_difference",
        cat("the run's grid is ", run.grid.nlat, " x ", run.grid.nlon, " and the reference's ",
            reference.grid.nlat, " x ", reference.grid.nlon, ": compare fields on the same grid"));
  double diff2 = 0, ref2 = 0, diff_max = 0, ref_max = 0;
  const int nlon = run.grid.nlon;
  for (std::size_t k = 0; k < run.values.size(); ++k) {
    const double w = std::cos(run.grid.lat_deg(static_cast<int>(k / nlon)) * M_PI / 180.0);
    const double d = run.values[k] - reference.values[k];
    diff2 += w * d * d;
    ref2 += w * reference.values[k] * reference.values[k];
    diff_max = std::max(diff_max, std::fabs(d));
    ref_max = std::max(ref_max, std::fabs(reference.values[k]));
  }
  FieldDifference out;
  out.l2_relative = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  out.linf_relative = ref_max > 0 ? diff_max / ref_max : diff_max;
  const auto [rlo, rhi] = std::minmax_element(run.values.begin(), run.values.end());
  const auto [flo, fhi] = std::minmax_element(reference.values.begin(), reference.values.end());
  out.run_min = *rlo, out.run_max = *rhi, out.reference_min = *flo, out.reference_max = *fhi;
  return out;
}

}  // namespace climate
