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

/// Text as PLplot draws it literally: its escape character '#' doubled (PLplot reads "#u", "#d",
/// "#(...)" as commands). UTF-8 passes through: pngcairo draws it with the system's fonts.
std::string plplot_literal(const std::string& text);

}  // namespace exadnn::io
