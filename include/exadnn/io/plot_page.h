// One PNG page drawn with PLplot (Debian libplplot-dev) through its pngcairo device (Debian
// plplot-driver-cairo). PLplot keeps global state, so a PlotPage holds a process-wide lock while it
// lives: one page at a time in the process, whoever draws it (io/plot.h's charts, an
// application's own PLplot figures such as apps/climate's maps). Between construction and
// finish() the caller draws with PLplot's own calls on the page's stream.
//
//   io::PlotPage page("map.png", 1200, 600, "write_map_png");
//   plvpor(0.1, 0.9, 0.1, 0.9);  // ... PLplot calls
//   page.finish();               // the PNG written, or an exadnn::Error naming the file
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace exadnn::io {

class PlotPage {
 public:
  /// Opens `path` (width x height pixels) as a new PLplot stream and starts its page (plinit):
  /// colour 0 (the background) white, colour 15 black. Refused with an exadnn::Error that names
  /// `who` and the file when the file cannot be created (checked before PLplot opens it: its
  /// drivers end the process on an open failure), the size is not 1..20000 pixels a side, or
  /// PLplot has no pngcairo device (install plplot-driver-cairo).
  PlotPage(const std::string& path, int width, int height, const std::string& who);
  PlotPage(const PlotPage&) = delete;
  PlotPage& operator=(const PlotPage&) = delete;
  /// A page not finished (an exception while drawing) is ended and its file removed.
  ~PlotPage();

  /// Ends the page (the PNG is written) and gives the previous PLplot stream back. Throws an
  /// exadnn::Error naming `who` and the file when PLplot reported an error while drawing or the
  /// file is empty afterwards (the partial file removed).
  void finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// A colour bar of colour map 1 right of the current viewport, outside it: one shade per interval
/// of `edges` (the values at the map's 0 and 1 are edges' first and last), the values as ticks on
/// its right, and `label` beside them.
struct ColourBar {
  std::vector<double> edges;  // ascending, at least 2
  std::string label;          // drawn literally (plplot_literal)
  double gap = 0.02;          // between the viewport and the bar, in units of the viewport's width
  double width = 0.03;        // the bar's width, same units
  int colour = 15;            // colour-0 index of its frame and text (15: PlotPage's black)
};

/// Draws `bar` on the page that is open. Shades, never PLplot's gradient: the cairo driver never
/// frees a gradient's pattern (LeakSanitizer reports it). Refused (exadnn::Error) with fewer than
/// two edges or edges not ascending.
void draw_colour_bar(const ColourBar& bar);

/// Text as PLplot draws it literally: its escape character '#' doubled (PLplot reads "#u", "#d",
/// "#(...)" as commands). UTF-8 passes through: pngcairo draws it with the system's fonts.
std::string plplot_literal(const std::string& text);

}  // namespace exadnn::io
