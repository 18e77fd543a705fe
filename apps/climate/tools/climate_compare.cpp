// climate_compare: how far a run's regridded fields are from a reference run's (a finer mesh's,
// in a convergence study), record by record, on the same latitude–longitude grid.
//
//   climate_compare RUN.nc REFERENCE.nc [--fields vorticity h] [--record -1]
//
// For each field and record (every record of the run whose time the reference also holds, so
// that a run written daily pairs with a reference written every 12 hours, or the one record asked
// for): the area-weighted relative l2 difference, the relative max difference, and both runs'
// extrema on the grid. A missing file or variable, different grids, or no record at a time both
// files hold stop it with one line naming the file and the fault, exit code 1.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "climate/netcdf_input.h"
#include "exadnn/core/error.h"

namespace {

// "1, 2, 3 days" for a message.
std::string days_list(const std::vector<double>& times) {
  std::string out;
  for (std::size_t k = 0; k < times.size(); ++k)
    out += (k == 0 ? "" : ", ") + exadnn::detail::cat(times[k] / 86400.0);
  return out + " days";
}

int run(const std::string& run_path, const std::string& reference_path,
        const std::vector<std::string>& fields, int record) {
  const std::vector<double> run_times = climate::latlon_times(run_path),
                            reference_times = climate::latlon_times(reference_path);
  std::vector<std::pair<int, int>> pairs =
      climate::records_at_common_times(run_times, reference_times);
  if (record != std::numeric_limits<int>::min()) {
    const int n = static_cast<int>(run_times.size());
    const int k = record < 0 ? n + record : record;
    EXADNN_CHECK(k >= 0 && k < n, "climate_compare", run_path, " holds ", n, " records, not ",
                 record);
    std::erase_if(pairs, [k](const std::pair<int, int>& p) { return p.first != k; });
    EXADNN_CHECK(!pairs.empty(), "climate_compare", "record ", record, " of ", run_path,
                 " is at day ", run_times[k] / 86400.0, ", a time ", reference_path,
                 " does not hold (", days_list(reference_times), ")");
  }
  EXADNN_CHECK(!pairs.empty(), "climate_compare", run_path, " (", days_list(run_times), ") and ",
               reference_path, " (", days_list(reference_times), ") hold no record at one time");
  std::printf("%-10s %10s %12s %12s %24s %24s\n", "field", "day", "l2 rel.", "max rel.",
              "run min / max", "reference min / max");
  for (const std::string& f : fields)
    for (const auto& [k, j] : pairs) {
      const climate::LatLonRecord a = climate::read_latlon_record(run_path, f, k);
      const climate::LatLonRecord b = climate::read_latlon_record(reference_path, f, j);
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
  app.add_option(
      "--record", record,
      "the run's record to compare (negative: from the end), against the reference's record at "
      "its time; default every record at a time both files hold");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(run_path, reference_path, fields, record);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "climate_compare: %s\n", e.what());
    return 1;
  }
}
