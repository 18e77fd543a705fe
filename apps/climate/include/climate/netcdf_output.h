// CF-convention (CF-1.8) NetCDF output of the regridded fields, one record per output step:
// dimensions time (unlimited), lat, lon; coordinate variables with units and standard names;
// h, u, v and the relative vorticity as (time, lat, lon) variables; the diagnostics (mass, total
// energy, potential enstrophy, max wind) as time series. Readable by ncdump, ncview and xarray.
#pragma once

#include <memory>
#include <string>

#include "climate/diagnostics.h"
#include "climate/regrid.h"

namespace climate {

/// The run's description, written as global attributes.
struct NetcdfRunInfo {
  std::string title;      ///< e.g. "Galewsky barotropic instability"
  std::string test_case;  ///< e.g. "galewsky (with bump)"
  int ne = 0;             ///< elements per cube edge
  int p = 0;              ///< polynomial degree
  /// The time origin of the "seconds since …" units (an idealized run: a conventional date).
  std::string time_origin = "2000-01-01 00:00:00";
};

/// Writes one file; records are appended by `append` and synced to disk after each. Every netCDF
/// failure is an exadnn::Error naming the file, the operation and nc_strerror's message.
class NetcdfWriter {
 public:
  /// Creates (or overwrites) `path` (netCDF-4 format) and defines its dimensions, variables and
  /// attributes for `grid`.
  NetcdfWriter(const std::string& path, const LatLonGrid& grid, const NetcdfRunInfo& info);
  /// Reopens a file this writer wrote, to continue a resumed run: its lat and lon sizes must be
  /// grid's; appending starts at its first record of time >= rewrite_from [s] (that record and
  /// any later one are rewritten by the run as it goes on).
  static std::unique_ptr<NetcdfWriter> reopen(const std::string& path, const LatLonGrid& grid,
                                              double rewrite_from);
  ~NetcdfWriter();
  NetcdfWriter(const NetcdfWriter&) = delete;
  NetcdfWriter& operator=(const NetcdfWriter&) = delete;

  /// Appends the record of time t [s]: the fields (each [nlat · nlon]) and the diagnostics.
  void append(double t, const LatLonFields& fields, const Invariants& diag);
  /// Closes the file (also done by the destructor, which cannot report a failure).
  void close();
  int records() const { return records_; }
  /// Records the file held when it was reopened (0 for a new file): those at index records()
  /// and beyond, if any remain, are from the stopped run (netCDF cannot shorten its time axis).
  int records_found() const { return records_found_; }
  const std::string& path() const { return path_; }

 private:
  struct Reopen {};
  NetcdfWriter(Reopen, const std::string& path, const LatLonGrid& grid, double rewrite_from);
  void check(int status, const char* what) const;
  // The open file's variable `name` (an Error naming it when absent).
  int var_id(const char* name) const;
  int def_var(const char* name, int ndims, const int* dims, const char* units,
              const char* standard_name, const char* long_name);

  std::string path_;
  int nlat_, nlon_;
  int ncid_ = -1;
  int records_ = 0;
  int records_found_ = 0;
  int time_var_, h_var_, u_var_, v_var_, vort_var_;
  int mass_var_, energy_var_, enstrophy_var_, wind_var_;
};

}  // namespace climate
