// climate_run: runs one shallow-water test case on the cubed sphere and writes its output — the
// fields regridded to latitude–longitude in a CF NetCDF file (one record per output step), the
// diagnostics table (stdout and <out>/<case>_diagnostics.tsv) and PNG maps of the relative
// vorticity and the height (the last output step, or every one with --maps all). At every whole
// output interval it also writes <case>_restart.ckpt (restart.h); --resume continues a stopped
// run from it,
// with the same settings and a --days at or past its time: the fields come out as if the run had
// never stopped, the NetCDF file and the table go on from that output step.
//
// Under mpirun with N > 1 ranks the elements are spread over the ranks (run_ranks.h): the
// fields are those of one process, bit for bit; rank 0 gathers the state at every output step
// and writes every file. A restart holds the whole state, so a run may resume on another number
// of ranks (every rank reads the restart file: a file system the ranks share).
//
//   climate_run --case galewsky --ne 16 --p 4 --days 6 --output-hours 24 --out runs/galewsky
//   climate_run --case galewsky --ne 16 --p 4 --days 6 --output-hours 24 --out runs/galewsky
//   --resume
//   mpirun -np 2 climate_run --case galewsky --ne 64 --p 4 --days 6 --out runs/galewsky64
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
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
#include "run_ranks.h"

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

// The output of one run, written by rank 0: the NetCDF file, the diagnostics table and the
// maps, from the whole state.
class RunOutput {
 public:
  RunOutput(const Options& o, const Case& tc, const CubedSphere& mesh, const ShallowWater& whole,
            const std::string& base, double resume_time)
      : o_(o),
        tc_(tc),
        whole_(whole),
        base_(base),
        grid_(o.nlat, o.nlon),
        interp_(mesh, grid_.points(mesh.radius())),
        initial_(tc.state(whole)),
        inv0_(invariants(whole, initial_)) {
    NetcdfRunInfo info;
    info.title = tc.title + ", shallow water on the cubed sphere";
    info.test_case = tc.title;
    info.ne = o.ne;
    info.p = o.p;
    nc_ = o.resume ? NetcdfWriter::reopen(base + ".nc", grid_, resume_time)
                   : std::make_unique<NetcdfWriter>(base + ".nc", grid_, info);
    if (o.resume) keep_rows(base + "_diagnostics.tsv", nc_->records());
    tsv_.open(base + "_diagnostics.tsv", o.resume ? std::ios::app : std::ios::trunc);
    EXADNN_CHECK(tsv_.good(), "climate_run", "cannot open ", base, "_diagnostics.tsv for writing");
    if (!o.resume) tsv_ << kHeader;
    std::printf("%s", kHeader);
  }

  /// One output step: the table's row, a NetCDF record and (if asked) the maps of `state` at
  /// `time`; `last` is the run's last output step.
  void write(const SwState& state, double time, bool last) {
    const double day = time / kDay;
    const Invariants inv = invariants(whole_, state);
    const std::vector<double> zeta = relative_vorticity(whole_, state);
    const auto [zmin, zmax] = std::minmax_element(zeta.begin(), zeta.end());
    char row[256];
    std::snprintf(row, sizeof row, "%.4f\t%.3e\t%.3e\t%.3e\t%.4f\t%.4e\t%.4e\t%.4g\n", day,
                  inv.mass / inv0_.mass - 1, inv.energy / inv0_.energy - 1,
                  inv.enstrophy / inv0_.enstrophy - 1, inv.max_wind, *zmin, *zmax,
                  max_height_change(whole_, state, initial_));
    std::printf("%s", row);
    std::fflush(stdout);
    tsv_ << row << std::flush;
    const LatLonFields fields = regrid_state(interp_, whole_, state);
    nc_->append(time, fields, inv);
    if (o_.maps == "all" || (o_.maps == "last" && last)) {
      char tag[32], title[256];
      std::snprintf(tag, sizeof tag, "_day%05.2f", day);
      std::snprintf(title, sizeof title, "%s, (Ne, p) = (%d, %d), day %.2f", tc_.title.c_str(),
                    o_.ne, o_.p, day);
      MapOptions vort{title, "relative vorticity [1/s]"};
      vort.diverging = true;
      write_map_png(base_ + tag + "_vorticity.png", grid_, fields.vorticity, vort);
      write_map_png(base_ + tag + "_height.png", grid_, fields.h, {title, "height h [m]"});
    }
  }

  /// Closes the NetCDF file and says what was written, then `run_summary`.
  void close(double time, const std::string& run_summary) {
    nc_->close();
    std::printf("wrote %s.nc (%d records), %s_diagnostics.tsv; %s\n", base_.c_str(), nc_->records(),
                base_.c_str(), run_summary.c_str());
    if (nc_->records_found() > nc_->records())
      std::printf(
          "note: %s.nc still holds %d records after day %.4f from the stopped run (netCDF "
          "cannot shorten its time axis)\n",
          base_.c_str(), nc_->records_found() - nc_->records(), time / kDay);
  }

 private:
  static constexpr const char* kHeader =
      "day\tmass_drift\tenergy_drift\tenstrophy_drift\tmax_wind\tvort_min\tvort_max\tmax_dh\n";

  const Options& o_;
  const Case& tc_;
  const ShallowWater& whole_;
  std::string base_;
  LatLonGrid grid_;
  PointInterpolator interp_;
  SwState initial_;
  Invariants inv0_;
  std::unique_ptr<NetcdfWriter> nc_;
  std::ofstream tsv_;
};

int run(const Options& o) {
  EXADNN_CHECK(o.days >= 0 && o.output_hours > 0, "climate_run",
               "--days must be >= 0 and --output-hours > 0, got ", o.days, " and ", o.output_hours);
  EXADNN_CHECK(o.maps == "last" || o.maps == "all" || o.maps == "none", "climate_run",
               "--maps is last, all or none, got '", o.maps, "'");
  EXADNN_CHECK(o.volume == "split" || o.volume == "divergence", "climate_run",
               "--volume is split or divergence, got '", o.volume, "'");
  const auto started = std::chrono::steady_clock::now();
  Case tc = make_case(o);
  tc.params.volume = o.volume == "split" ? VolumeForm::split : VolumeForm::divergence;
  const CubedSphere mesh(o.ne, o.p);
  const std::unique_ptr<RunRanks> ranks = make_run_ranks(mesh, tc.params);
  const bool root = ranks->is_root();
  const std::unique_ptr<Simulation> sim = ranks->simulation(tc.state(ranks->local()), o.cfl);
  const ModalFilter filter(ranks->local(), o.filter);
  if (o.filter.strength > 0) sim->set_filter(&filter);

  const std::string base = (std::filesystem::path(o.out) / tc.stem).string();
  const std::string restart_path = base + "_restart.ckpt";
  const RestartSettings settings = restart_settings(o, tc.stem);
  const double t_end = o.days * kDay, dt_out = o.output_hours * 3600;
  if (o.resume) {
    const std::size_t whole_size = static_cast<std::size_t>(mesh.num_elements()) *
                                   ShallowWater::kVars * mesh.nodes_per_element();
    Restart r = load_restart(restart_path, settings, whole_size);
    EXADNN_CHECK(r.time <= t_end * (1 + 1e-12), "climate_run", restart_path, " is at day ",
                 r.time / kDay, ", past --days ", o.days);
    if (root)
      std::printf("resuming from %s: day %.4f, step %ld\n", restart_path.c_str(), r.time / kDay,
                  r.steps);
    sim->resume(ranks->part_of(r.state), r.time, r.steps);
  }
  // Rank 0 writes every file, from the whole state: with a solver of the whole mesh of its own
  // when the elements are spread over ranks.
  std::unique_ptr<ShallowWater> whole_solver;
  std::unique_ptr<RunOutput> output;
  if (root) {
    if (ranks->size() > 1) whole_solver = std::make_unique<ShallowWater>(mesh, tc.params);
    std::filesystem::create_directories(o.out);
    std::printf("%s, (Ne, p) = (%d, %d), %s form, CFL %.3g, %d x %d lat-lon, %d process%s\n",
                tc.title.c_str(), o.ne, o.p, o.volume.c_str(), o.cfl, o.nlat, o.nlon, ranks->size(),
                ranks->size() > 1 ? "es (MPI ranks)" : "");
    if (o.filter.strength > 0)
      std::printf(
          "modal filter every step: strength %.4g, order %d, cutoff %.3g (top mode x %.3g)\n",
          o.filter.strength, o.filter.order, o.filter.cutoff, filter.damping().back());
    output = std::make_unique<RunOutput>(o, tc, mesh, whole_solver ? *whole_solver : ranks->local(),
                                         base, sim->time());
  }

  const long outputs = static_cast<long>(std::ceil(t_end / dt_out - 1e-9));
  // A resumed run starts at the output step of its restart (written again, with the same values).
  const long first = o.resume ? static_cast<long>(std::ceil(sim->time() / dt_out - 1e-9)) : 0;
  double restart_day = -1;
  for (long k = first; k <= outputs; ++k) {
    sim->advance_to(std::min(k * dt_out, t_end));
    const SwState state = ranks->gather(sim->state());  // empty on ranks other than 0
    if (root) output->write(state, sim->time(), k == outputs);
    // Restarts only at whole output intervals (not at a --days between two), so a resumed run
    // steps through the same times as one that never stopped.
    if (std::abs(sim->time() - k * dt_out) <= 1e-9 * dt_out) {
      if (root) save_restart(restart_path, state, sim->time(), sim->steps(), settings);
      restart_day = sim->time() / kDay;
    }
  }
  if (!root) return 0;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char summary[160];
  std::snprintf(summary, sizeof summary, "%ld steps, dt %.4g s, %.1f s wall on %d process%s",
                sim->steps(), sim->dt(), seconds, ranks->size(), ranks->size() > 1 ? "es" : "");
  output->close(sim->time(), summary);
  if (restart_day >= 0)
    std::printf("restart file %s: day %.4f\n", restart_path.c_str(), restart_day);
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
    // On several ranks the error may be rank 0's alone (a file it cannot write) while the others
    // wait for it in the next step: end the whole job.
    end_job_on_error(e.what());
    std::fprintf(stderr, "climate_run: %s\n", e.what());
    return 1;
  }
}
