#include "climate/map_plot.h"

#include <plplot/plplot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "exadnn/core/error.h"
#include "exadnn/io/plot_page.h"

namespace climate {
namespace {

// The colour map 1 (the shades): blue–white–red, or a sequential dark blue → teal → yellow.
void set_palette(bool diverging) {
  if (diverging) {
    const PLFLT pos[5] = {0, 0.25, 0.5, 0.75, 1};
    const PLFLT r[5] = {0.02, 0.35, 1.0, 0.9, 0.45}, g[5] = {0.19, 0.6, 1.0, 0.35, 0.0},
                b[5] = {0.5, 0.85, 1.0, 0.25, 0.05};
    plscmap1l(1, 5, pos, r, g, b, nullptr);
  } else {
    const PLFLT pos[5] = {0, 0.25, 0.5, 0.75, 1};
    const PLFLT r[5] = {0.27, 0.23, 0.13, 0.37, 0.99}, g[5] = {0.0, 0.32, 0.57, 0.79, 0.91},
                b[5] = {0.33, 0.55, 0.55, 0.38, 0.14};
    plscmap1l(1, 5, pos, r, g, b, nullptr);
  }
}

std::string format_extrema(double lo, double hi) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "min %.4e, max %.4e", lo, hi);
  return buf;
}

}  // namespace

void write_map_png(const std::string& path, const LatLonGrid& grid,
                   const std::vector<double>& field, const MapOptions& o) {
  const std::size_t cells = static_cast<std::size_t>(grid.nlat) * grid.nlon;
  EXADNN_CHECK(field.size() == cells, "write_map_png", path, ": the field has ", field.size(),
               " values, the grid ", grid.nlat, " x ", grid.nlon);
  EXADNN_CHECK(o.width >= 100 && o.height >= 100, "write_map_png", path,
               ": the image must be at least 100 x 100 pixels, got ", o.width, " x ", o.height);
  EXADNN_CHECK(o.levels >= 2, "write_map_png", path, ": at least 2 shades, got ", o.levels);
  EXADNN_CHECK(grid.nlat >= 2 && grid.nlon >= 2, "write_map_png", path,
               ": a map needs at least 2 x 2 points, got ", grid.nlat, " x ", grid.nlon);
  for (std::size_t k = 0; k < cells; ++k)
    EXADNN_CHECK(std::isfinite(field[k]), "write_map_png", path, ": value ", k, " (lat index ",
                 k / grid.nlon, ", lon index ", k % grid.nlon, ") is ", field[k]);
  const auto [lo_it, hi_it] = std::minmax_element(field.begin(), field.end());
  const double lo = *lo_it, hi = *hi_it;
  // The shaded range: ±max |f| for a diverging map; widened when the field is constant.
  double zmin = lo, zmax = hi;
  if (o.diverging) zmax = std::max(std::abs(lo), std::abs(hi)), zmin = -zmax;
  if (!(zmax > zmin)) {
    const double pad = std::max(1e-300, 1e-6 * std::abs(zmax));
    zmin -= pad;
    zmax += pad;
  }
  std::vector<PLFLT> edges(o.levels + 1);
  for (int k = 0; k <= o.levels; ++k) edges[k] = zmin + (zmax - zmin) * k / o.levels;
  // plshades wants a[x][y]: longitude first.
  std::vector<PLFLT> transposed(cells);
  std::vector<const PLFLT*> rows(grid.nlon);
  for (int j = 0; j < grid.nlon; ++j) {
    for (int i = 0; i < grid.nlat; ++i)
      transposed[static_cast<std::size_t>(j) * grid.nlat + i] = field[i * grid.nlon + j];
    rows[j] = &transposed[static_cast<std::size_t>(j) * grid.nlat];
  }

  exadnn::io::PlotPage page(path, o.width, o.height, "write_map_png");
  pladv(0);
  plvpor(0.09, 0.84, 0.12, 0.86);
  plwind(-180, 180, -90, 90);
  set_palette(o.diverging);
  plshades(rows.data(), grid.nlon, grid.nlat, nullptr, grid.lon_deg(0), grid.lon_deg(grid.nlon - 1),
           grid.lat_deg(0), grid.lat_deg(grid.nlat - 1), edges.data(), o.levels + 1, 1.0, 0, 0.0,
           plfill, 1, nullptr, nullptr);
  plcol0(15);
  plbox("bcnst", 60, 2, "bcnstv", 30, 3);
  pllab("longitude [°]", "latitude [°]", "");
  plmtex("t", 2.4, 0.5, 0.5, exadnn::io::plplot_literal(o.title).c_str());
  plmtex("t", 0.8, 0.5, 0.5, format_extrema(lo, hi).c_str());
  // The colour bar right of the map, labelled with the field's name.
  exadnn::io::draw_colour_bar({edges, o.label, 0.02, 0.03, 15});
  page.finish();
}

bool read_png_size(const std::string& path, int& width, int& height) {
  std::ifstream in(path, std::ios::binary);
  unsigned char head[24];
  if (!in.read(reinterpret_cast<char*>(head), sizeof head)) return false;
  static const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (std::memcmp(head, kSignature, 8) != 0 || std::memcmp(head + 12, "IHDR", 4) != 0) return false;
  const auto be32 = [&](int at) {
    return static_cast<int>((static_cast<unsigned>(head[at]) << 24) | (head[at + 1] << 16) |
                            (head[at + 2] << 8) | head[at + 3]);
  };
  width = be32(16);
  height = be32(20);
  return true;
}

}  // namespace climate
