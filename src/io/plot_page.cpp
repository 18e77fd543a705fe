#include "exadnn/io/plot_page.h"

#include <plplot/plplot.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include "exadnn/core/error.h"

namespace exadnn::io {
namespace {

// PLplot keeps global state (the current stream, its colour maps, its abort handler): one page
// at a time in the process.
std::mutex& plplot_mutex() {
  static std::mutex m;
  return m;
}

// The message of a PLplot abort (a failed call that PLplot survives), reported by finish().
std::string abort_message;
void record_abort(PLCHAR_VECTOR message) {
  if (abort_message.empty()) abort_message = message;
}

bool has_pngcairo() {
  // plgFileDevs fills caller-provided arrays of up to n entries and sets n to the count.
  int n = 128;
  std::vector<PLCHAR_VECTOR> menu_store(n), name_store(n);
  PLCHAR_VECTOR* menu = menu_store.data();
  PLCHAR_VECTOR* names = name_store.data();
  plgFileDevs(&menu, &names, &n);
  for (int k = 0; k < n; ++k)
    if (std::strcmp(names[k], "pngcairo") == 0) return true;
  return false;
}

}  // namespace

struct PlotPage::State {
  std::unique_lock<std::mutex> lock{plplot_mutex()};
  std::string path, who;
  PLINT previous_stream = 0;
  bool open = false;
};

PlotPage::PlotPage(const std::string& path, int width, int height, const std::string& who)
    : state_(std::make_unique<State>()) {
  state_->path = path;
  state_->who = who;
  EXADNN_CHECK(width >= 1 && height >= 1 && width <= 20000 && height <= 20000, who, path,
               ": a page of ", width, " x ", height, " pixels (1 .. 20000 a side)");
  {
    std::FILE* probe = std::fopen(path.c_str(), "wb");
    EXADNN_CHECK(probe != nullptr, who, "cannot create ", path, ": ", std::strerror(errno));
    std::fclose(probe);
  }
  EXADNN_CHECK(has_pngcairo(), who, path,
               ": PLplot has no pngcairo device (install plplot-driver-cairo)");
  abort_message.clear();
  plsabort(record_abort);
  PLINT stream = 0;
  plgstrm(&state_->previous_stream);
  plmkstrm(&stream);
  plsdev("pngcairo");
  plsfnam(path.c_str());
  plspage(0, 0, width, height, 0, 0);
  plscolbg(255, 255, 255);
  plscol0(15, 0, 0, 0);
  plinit();
  state_->open = true;
}

void PlotPage::finish() {
  EXADNN_CHECK(state_ && state_->open, state_ ? state_->who : std::string("PlotPage"),
               "the page is already finished");
  plend1();
  plsstrm(state_->previous_stream);
  state_->open = false;
  const std::string message = abort_message;
  std::error_code ec;
  const auto size = std::filesystem::file_size(state_->path, ec);
  if (!message.empty() || ec || size == 0) {
    std::filesystem::remove(state_->path, ec);
    throw Error(state_->who, state_->path + ": PLplot: " +
                                 (message.empty() ? std::string("no image was written") : message));
  }
}

PlotPage::~PlotPage() {
  if (!state_ || !state_->open) return;
  plend1();
  plsstrm(state_->previous_stream);
  std::error_code ec;
  std::filesystem::remove(state_->path, ec);
}

void draw_colour_bar(const ColourBar& bar) {
  const std::vector<double>& e = bar.edges;
  EXADNN_CHECK(e.size() >= 2, "draw_colour_bar", e.size(), " edges (at least 2)");
  for (size_t k = 1; k < e.size(); ++k)
    EXADNN_CHECK(e[k] > e[k - 1], "draw_colour_bar", "edges not ascending at ", k, " (", e[k - 1],
                 ", ", e[k], ")");
  PLFLT bar_width = 0, bar_height = 0;  // what PLplot drew, in normalised viewport units
  const std::string label = plplot_literal(bar.label);
  const PLINT label_options[1] = {PL_COLORBAR_LABEL_RIGHT};
  const char* labels[1] = {label.c_str()};
  const char* axis_options[1] = {"bcvtm"};  // frame, ticks and values on the right, upright
  const PLFLT ticks[1] = {0.0};             // PLplot's own tick spacing
  const PLINT sub_ticks[1] = {0};
  const PLINT n_values[1] = {static_cast<PLINT>(e.size())};
  const PLFLT* values[1] = {e.data()};
  plcolorbar(&bar_width, &bar_height, PL_COLORBAR_SHADE,
             PL_POSITION_RIGHT | PL_POSITION_OUTSIDE | PL_POSITION_VIEWPORT, bar.gap, 0.0,
             bar.width, 1.0, /*bg_color=*/0, /*bb_color=*/bar.colour, /*bb_style=*/1,
             /*low_cap_color=*/0.0, /*high_cap_color=*/0.0, /*cont_color=*/0, /*cont_width=*/0.0, 1,
             label_options, labels, 1, axis_options, ticks, sub_ticks, n_values, values);
}

std::string plplot_literal(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    out += c;
    if (c == '#') out += '#';
  }
  return out;
}

}  // namespace exadnn::io
