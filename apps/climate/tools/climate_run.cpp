// climate_run: runs one shallow-water test case on the cubed sphere and writes its output — the
// fields regridded to latitude–longitude in a CF NetCDF file (one record per output step), the
// diagnostics table (stdout and <out>/<case>_diagnostics.tsv) and PNG maps of the relative
// vorticity and the height (the last output step, or every one with --maps all). At every whole
// output interval it also writes <case>_restart.ckpt (restart.h); --resume continues a stopped
// run from it,
// with the same settings and a --days at or past its time: the fields come out as if the run had
// never stopped, the NetCDF file and the table go on from that output step.
//
//   climate_run --case galewsky --ne 16 --p 4 --days 6 --output-hours 24 --out runs/galewsky
//   climate_run --case galewsky --ne 16 --p 4 --days 6 --output-hours 24 --out runs/galewsky
//   --resume
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "climate/diagnostics.h"
#include "climate/galewsky.h"
#include "climate/map_plot.h"
#include "climate/netcdf_output.h"
#include "climate/regrid.h"
#include "climate/restart.h"
#include "climate/simulation.h"
#include "climate/williamson2.h"
#include "climate/williamson6.h"
#include "exadnn/core/error.h"

namespace {

using namespace climate;

struct Options {
  std::string test_case = "williamson2";
  bool no_bump = false;
  double alpha = 0;
  int ne = 4, p = 3;
  double days = 1, output_hours = 24, cfl = 0.5;
  int nlat = 180, nlon = 360;
  std::string volume = "split";
  FilterParams filter{0, 16, 0};  // strength 0: no filter
  std::string maps = "last";
  std::string out = ".";
  bool resume = false;
};

// The test case's solver parameters, initial state and names.
struct Case {
  ShallowWaterParams params;
  std::function<SwState(const ShallowWater&)> state;
  std::string stem, title;
};

Case make_case(const Options& o) {
  if (o.test_case == "williamson2") {
    Williamson2 tc;
    tc.alpha = o.alpha;
    char title[96];
    std::snprintf(title, sizeof title, "Williamson 2 (alpha = %.4g)", o.alpha);
    return {tc.params(), [tc](const ShallowWater& s) { return tc.state(s); }, "williamson2", title};
  }
  if (o.test_case == "williamson6") {
    const Williamson6 tc;
    return {tc.params(), [tc](const ShallowWater& s) { return tc.state(s); }, "williamson6",
            "Williamson 6 (Rossby-Haurwitz wave)"};
  }
  if (o.test_case == "galewsky") {
    const auto tc = std::make_shared<Galewsky>(!o.no_bump);
    return {tc->params(), [tc](const ShallowWater& s) { return tc->state(s); },
            o.no_bump ? "galewsky_nobump" : "galewsky",
            o.no_bump ? "Galewsky (no bump)" : "Galewsky (with bump)"};
  }
  throw exadnn::Error("climate_run", "unknown test case '" + o.test_case +
                                         "' (williamson2, williamson6, galewsky)");
}

// What a restart must have been written with to continue this run.
RestartSettings restart_settings(const Options& o, const std::string& stem) {
  return {{"case", stem},
          {"alpha", exact_text(o.alpha)},
          {"ne", std::to_string(o.ne)},
          {"p", std::to_string(o.p)},
          {"volume", o.volume},
          {"cfl", exact_text(o.cfl)},
          {"filter_strength", exact_text(o.filter.strength)},
          {"filter_order", std::to_string(o.filter.order)},
          {"filter_cutoff", exact_text(o.filter.cutoff)},
          {"output_hours", exact_text(o.output_hours)}};
}

// A resumed run's table: the header and its first `rows` rows kept (those of the NetCDF records
// the resumed run keeps: one row per record), the rest rewritten as the run goes on.
void keep_rows(const std::string& path, int rows) {
  std::ifstream in(path);
  EXADNN_CHECK(in.good(), "climate_run", "cannot read ", path, " to continue it");
  std::string kept, line;
  for (int n = 0; n <= rows && std::getline(in, line); ++n) kept += line + "\n";
  in.close();
  std::ofstream out(path, std::ios::trunc);
  out << kept;
  EXADNN_CHECK(out.good(), "climate_run", "cannot rewrite ", path);
}

// The largest |a − b| over nodes of the height (variable 0 of each element).
double max_height_change(const ShallowWater& solver, const SwState& a, const SwState& b) {
  const int npe = solver.mesh().nodes_per_element();
  double m = 0;
  for (int e = 0; e < solver.mesh().num_elements(); ++e)
    for (int n = 0; n < npe; ++n)
      m = std::max(m, std::abs(a[solver.offset(e, 0) + n] - b[solver.offset(e, 0) + n]));
  return m;
}

int run(const Options& o) {
  EXADNN_CHECK(o.days >= 0 && o.output_hours > 0, "climate_run",
               "--days must be >= 0 and --output-hours > 0, got ", o.days, " and ", o.output_hours);
  EXADNN_CHECK(o.maps == "last" || o.maps == "all" || o.maps == "none", "climate_run",
               "--maps is last, all or none, got '", o.maps, "'");
  EXADNN_CHECK(o.volume == "split" || o.volume == "divergence", "climate_run",
               "--volume is split or divergence, got '", o.volume, "'");
  Case tc = make_case(o);
  tc.params.volume = o.volume == "split" ? VolumeForm::split : VolumeForm::divergence;
  const CubedSphere mesh(o.ne, o.p);
  const ShallowWater solver(mesh, tc.params);
  const SwState initial = tc.state(solver);
  Simulation sim(solver, initial, o.cfl);
  const ModalFilter filter(solver, o.filter);
  if (o.filter.strength > 0) sim.set_filter(&filter);

  std::filesystem::create_directories(o.out);
  const std::string base = (std::filesystem::path(o.out) / tc.stem).string();
  const std::string restart_path = base + "_restart.ckpt";
  const RestartSettings settings = restart_settings(o, tc.stem);
  const double t_end = o.days * kDay, dt_out = o.output_hours * 3600;
  if (o.resume) {
    Restart r = load_restart(restart_path, settings, solver.state_size());
    EXADNN_CHECK(r.time <= t_end * (1 + 1e-12), "climate_run", restart_path, " is at day ",
                 r.time / kDay, ", past --days ", o.days);
    std::printf("resuming from %s: day %.4f, step %ld\n", restart_path.c_str(), r.time / kDay,
                r.steps);
    sim.resume(std::move(r.state), r.time, r.steps);
  }
  const LatLonGrid grid(o.nlat, o.nlon);
  const PointInterpolator interp(mesh, grid.points(mesh.radius()));
  NetcdfRunInfo info;
  info.title = tc.title + ", shallow water on the cubed sphere";
  info.test_case = tc.title;
  info.ne = o.ne;
  info.p = o.p;
  const std::unique_ptr<NetcdfWriter> nc =
      o.resume ? NetcdfWriter::reopen(base + ".nc", grid, sim.time())
               : std::make_unique<NetcdfWriter>(base + ".nc", grid, info);
  const char* header =
      "day\tmass_drift\tenergy_drift\tenstrophy_drift\tmax_wind\tvort_min\tvort_max\tmax_dh\n";
  if (o.resume) keep_rows(base + "_diagnostics.tsv", nc->records());
  std::ofstream tsv(base + "_diagnostics.tsv", o.resume ? std::ios::app : std::ios::trunc);
  EXADNN_CHECK(tsv.good(), "climate_run", "cannot open ", base, "_diagnostics.tsv for writing");
  if (!o.resume) tsv << header;
  std::printf("%s, (Ne, p) = (%d, %d), %s form, CFL %.3g, %d x %d lat-lon\n", tc.title.c_str(),
              o.ne, o.p, o.volume.c_str(), o.cfl, o.nlat, o.nlon);
  if (o.filter.strength > 0)
    std::printf("modal filter every step: strength %.4g, order %d, cutoff %.3g (top mode x %.3g)\n",
                o.filter.strength, o.filter.order, o.filter.cutoff, filter.damping().back());
  std::printf("%s", header);

  const Invariants inv0 = invariants(solver, initial);
  const long outputs = static_cast<long>(std::ceil(t_end / dt_out - 1e-9));
  // A resumed run starts at the output step of its restart (written again, with the same values).
  const long first = o.resume ? static_cast<long>(std::ceil(sim.time() / dt_out - 1e-9)) : 0;
  double restart_day = -1;
  for (long k = first; k <= outputs; ++k) {
    sim.advance_to(std::min(k * dt_out, t_end));
    const double day = sim.time() / kDay;
    const Invariants inv = invariants(solver, sim.state());
    const std::vector<double> zeta = relative_vorticity(solver, sim.state());
    const auto [zmin, zmax] = std::minmax_element(zeta.begin(), zeta.end());
    char row[256];
    std::snprintf(row, sizeof row, "%.4f\t%.3e\t%.3e\t%.3e\t%.4f\t%.4e\t%.4e\t%.4g\n", day,
                  inv.mass / inv0.mass - 1, inv.energy / inv0.energy - 1,
                  inv.enstrophy / inv0.enstrophy - 1, inv.max_wind, *zmin, *zmax,
                  max_height_change(solver, sim.state(), initial));
    std::printf("%s", row);
    std::fflush(stdout);
    tsv << row << std::flush;
    const LatLonFields fields = regrid_state(interp, solver, sim.state());
    nc->append(sim.time(), fields, inv);
    if (o.maps == "all" || (o.maps == "last" && k == outputs)) {
      char tag[32], title[256];
      std::snprintf(tag, sizeof tag, "_day%05.2f", day);
      std::snprintf(title, sizeof title, "%s, (Ne, p) = (%d, %d), day %.2f", tc.title.c_str(), o.ne,
                    o.p, day);
      MapOptions vort{title, "relative vorticity [1/s]"};
      vort.diverging = true;
      write_map_png(base + tag + "_vorticity.png", grid, fields.vorticity, vort);
      write_map_png(base + tag + "_height.png", grid, fields.h, {title, "height h [m]"});
    }
    // Restarts only at whole output intervals (not at a --days between two), so a resumed run
    // steps through the same times as one that never stopped.
    if (std::abs(sim.time() - k * dt_out) <= 1e-9 * dt_out) {
      save_restart(restart_path, sim, settings);
      restart_day = sim.time() / kDay;
    }
  }
  nc->close();
  std::printf("wrote %s.nc (%d records), %s_diagnostics.tsv; %ld steps, dt %.4g s\n", base.c_str(),
              nc->records(), base.c_str(), sim.steps(), sim.dt());
  if (restart_day >= 0)
    std::printf("restart file %s: day %.4f\n", restart_path.c_str(), restart_day);
  if (nc->records_found() > nc->records())
    std::printf(
        "note: %s.nc still holds %d records after day %.4f from the stopped run (netCDF "
        "cannot shorten its time axis)\n",
        base.c_str(), nc->records_found() - nc->records(), sim.time() / kDay);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Runs a shallow-water test case on the cubed sphere (DG + RK4) and writes CF "
      "NetCDF output, diagnostics and PNG maps"};
  Options o;
  app.add_option("--case", o.test_case, "williamson2, williamson6 or galewsky");
  app.add_flag("--no-bump", o.no_bump, "galewsky: without the bump (the steady jet)");
  app.add_option("--alpha", o.alpha, "williamson2: flow angle [rad]");
  app.add_option("--ne", o.ne, "elements per cube edge");
  app.add_option("--p", o.p, "polynomial degree");
  app.add_option("--days", o.days, "simulated days");
  app.add_option("--output-hours", o.output_hours, "hours between output steps");
  app.add_option("--cfl", o.cfl, "Courant number");
  app.add_option("--nlat", o.nlat, "latitudes of the output grid");
  app.add_option("--nlon", o.nlon, "longitudes of the output grid");
  app.add_option("--volume", o.volume, "split or divergence");
  app.add_option("--filter-strength", o.filter.strength,
                 "modal filter after every step: alpha (mode p damped by exp(-alpha)); 0: none");
  app.add_option("--filter-order", o.filter.order, "modal filter: order s (even)");
  app.add_option("--filter-cutoff", o.filter.cutoff, "modal filter: modes k <= cutoff p kept");
  app.add_option("--maps", o.maps, "PNG maps: last, all or none");
  app.add_option("--out", o.out, "output directory");
  app.add_flag("--resume", o.resume,
               "continue from <out>/<case>_restart.ckpt (written at every output step), with the "
               "settings the run started with and --days at or past the restart's day");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "climate_run: %s\n", e.what());
    return 1;
  }
}
