// climate_compare: how far a run's regridded fields are from a reference run's (a finer mesh's,
// in a convergence study), record by record, on the same latitude–longitude grid.
//
//   climate_compare RUN.nc REFERENCE.nc [--fields vorticity h] [--record -1]
//
// For each field and record (every record both files hold at the same time, or the one asked
// for): the area-weighted relative l2 difference, the relative max difference, and both runs'
// extrema on the grid. A missing file or variable, different grids, or records at different
// times stop it with one line naming the file and the fault, exit code 1.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "climate/netcdf_input.h"
#include "exadnn/core/error.h"

namespace {

int run(const std::string& run_path, const std::string& reference_path,
        const std::vector<std::string>& fields, int record) {
  std::vector<int> records{record};
  const bool every = record == std::numeric_limits<int>::min();
  if (every) {
    const int n = climate::latlon_records(run_path), m = climate::latlon_records(reference_path);
    EXADNN_CHECK(n == m, "climate_compare", run_path, " holds ", n, " records and ", reference_path,
                 " ", m, ": pass --record to compare one");
    records.clear();
    for (int k = 0; k < n; ++k) records.push_back(k);
  }
  std::printf("%-10s %10s %12s %12s %24s %24s\n", "field", "day", "l2 rel.", "max rel.",
              "run min / max", "reference min / max");
  for (const std::string& f : fields)
    for (const int k : records) {
      const climate::LatLonRecord a = climate::read_latlon_record(run_path, f, k);
      const climate::LatLonRecord b = climate::read_latlon_record(reference_path, f, k);
      EXADNN_CHECK(std::fabs(a.time - b.time) <= 1e-6 * std::fmax(1.0, std::fabs(b.time)),
                   "climate_compare", "record ", k, " is at t = ", a.time, " s in ", run_path,
                   " and t = ", b.time, " s in ", reference_path);
      const climate::FieldDifference d = climate::field_difference(a, b);
      std::printf("%-10s %10.3f %12.4e %12.4e %11.4e / %10.4e %11.4e / %10.4e\n", f.c_str(),
                  a.time / 86400.0, d.l2_relative, d.linf_relative, d.run_min, d.run_max,
                  d.reference_min, d.reference_max);
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Compares a run's regridded fields with a reference run's (climate_run NetCDF files)"};
  std::string run_path, reference_path;
  std::vector<std::string> fields{"vorticity", "h", "u", "v"};
  int record = std::numeric_limits<int>::min();
  app.add_option("run", run_path, "the run's NetCDF file")->required();
  app.add_option("reference", reference_path, "the reference run's NetCDF file")->required();
  app.add_option("--fields", fields, "variables to compare (h, u, v, vorticity)");
  app.add_option("--record", record,
                 "the record to compare (negative: from the end); default every one");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(run_path, reference_path, fields, record);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "climate_compare: %s\n", e.what());
    return 1;
  }
}
