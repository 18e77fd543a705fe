// Reading climate_run's CF NetCDF files back (netcdf_output.h's layout), and the difference of two
// runs on the same latitude–longitude grid: how a convergence study compares a run with a finer
// one taken as its reference.
//
//   const LatLonRecord run = read_latlon_record("ne32/galewsky.nc", "vorticity", -1);
//   const LatLonRecord ref = read_latlon_record("ne48/galewsky.nc", "vorticity", -1);
//   const FieldDifference d = field_difference(run, ref);   // d.l2_relative, d.linf_relative
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "climate/regrid.h"

namespace climate {

/// One record of one (time, lat, lon) variable.
struct LatLonRecord {
  LatLonGrid grid{1, 1};
  double time = 0;             ///< seconds since the run's start
  std::vector<double> values;  ///< [nlat · nlon], latitude slow
};

/// The records (output steps) `path` holds (its time dimension's length).
int latlon_records(const std::string& path);

/// The times of `path`'s records, seconds since the run's start (its variable 'time').
std::vector<double> latlon_times(const std::string& path);

/// The pairs (run record, reference record) at the same time (within 1e-6 of it, relatively), in
/// the run's order: how runs with different output intervals are compared (a run written daily
/// against a reference written every 12 hours pairs with every second reference record).
std::vector<std::pair<int, int>> records_at_common_times(
    const std::vector<double>& run_times, const std::vector<double>& reference_times);

/// Record `record` of variable `name` ("h", "u", "v", "vorticity") of `path`; a negative record
/// counts from the end (−1: the last). A missing file, variable or record, or a variable not over
/// (time, lat, lon), is an exadnn::Error naming the file and what is missing.
LatLonRecord read_latlon_record(const std::string& path, const std::string& name, int record);

/// `run` against `reference` on the same grid (else an exadnn::Error naming both sizes), weighted
/// by each cell's area (cos latitude):
///   l2_relative   = sqrt(Σ w (run − ref)²) / sqrt(Σ w ref²)
///   linf_relative = max |run − ref| / max |ref|
/// and both fields' extrema on the grid.
struct FieldDifference {
  double l2_relative = 0, linf_relative = 0;
  double run_min = 0, run_max = 0, reference_min = 0, reference_max = 0;
};
FieldDifference field_difference(const LatLonRecord& run, const LatLonRecord& reference);

}  // namespace climate
